import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../api/index.js';
import type { ManifestProblem } from './types.js';

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

interface FileList {
  files: string[];
  problems: ManifestProblem[];
}

/**
 * Expands the given paths into the manifest files to read. A named file is
 * always read, whatever its extension; a directory contributes its .yaml,
 * .yml and .json files, recursively, sorted by full path (code-unit order, so
 * the result does not depend on the locale). Names starting with "." are
 * skipped inside directories: editor and VCS artefacts, and the `..data` /
 * `..<timestamp>` directories of a ConfigMap volume, whose files are already
 * visible through the symlinks beside them. Each real file is listed once.
 */
export async function listManifestFiles(paths: string[]): Promise<FileList> {
  const files: string[] = [];
  const problems: ManifestProblem[] = [];
  const seenFiles = new Set<string>();
  const seenDirs = new Set<string>();

  const addFile = async (file: string): Promise<void> => {
    const real = await realpath(file);
    if (seenFiles.has(real)) return;
    seenFiles.add(real);
    files.push(file);
  };

  // Collects every candidate below dir; the caller sorts the whole tree at
  // once, so that the order is by full path and not depth-first.
  const walk = async (dir: string, found: string[]): Promise<void> => {
    // Symlinked directories are followed; the real path stops a link cycle.
    const real = await realpath(dir);
    if (seenDirs.has(real)) return;
    seenDirs.add(real);
    let names: string[];
    try {
      // Sorted so that, of two links to one directory, the same one always wins.
      names = (await readdir(dir)).sort(compareCodeUnits);
    } catch (err) {
      problems.push({ file: dir, document: -1, severity: 'error', message: `cannot read: ${errorMessage(err)}` });
      return;
    }
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const entry = path.join(dir, name);
      const wanted = MANIFEST_EXTENSIONS.has(path.extname(name).toLowerCase());
      let info;
      try {
        info = await stat(entry);
      } catch (err) {
        // A dangling link named like a manifest is worth a word; other debris is not.
        if (wanted) problems.push({ file: entry, document: -1, severity: 'error', message: `cannot read: ${errorMessage(err)}` });
        continue;
      }
      if (info.isDirectory()) await walk(entry, found);
      else if (info.isFile() && wanted) found.push(entry);
    }
  };

  for (const p of paths) {
    try {
      const info = await stat(p);
      if (info.isDirectory()) {
        const found: string[] = [];
        await walk(p, found);
        for (const file of found.sort(compareCodeUnits)) await addFile(file);
      } else {
        await addFile(p);
      }
    } catch (err) {
      problems.push({ file: p, document: -1, severity: 'error', message: `cannot read: ${errorMessage(err)}` });
    }
  }
  return { files, problems };
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
