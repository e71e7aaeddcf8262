import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

const made: string[] = [];

/** Removes every tree made by the test that just ran. */
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Writes files (relative path -> content) under a fresh temp directory and returns it. */
export async function writeTree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'manifests-'));
  made.push(root);
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  return root;
}

export const CSID_HEADER = 'apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterSPIFFEID\n';

/** A minimal valid ClusterSPIFFEID document. */
export function csid(name: string, extraSpec = ''): string {
  return `${CSID_HEADER}metadata:\n  name: ${name}\nspec:\n  spiffeIDTemplate: spiffe://example.org/${name}\n${extraSpec}`;
}
