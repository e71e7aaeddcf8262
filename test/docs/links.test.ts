/**
 * The documentation's links work: every relative link in README.md,
 * ARCHITECTURE.md, deploy/README.md and docs/*.md names a file or folder that
 * exists, and every #anchor names a heading of its target, by GitHub's rule
 * for heading anchors. And README.md stays a first page: at most 210 lines,
 * none wider than 160 characters; the rest lives in docs/.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';

const PAGES = ['README.md', 'ARCHITECTURE.md', 'deploy/README.md', ...readdirSync(join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The lines of a page outside fenced code blocks, with their line numbers. */
function prose(text: string): { line: string; n: number }[] {
  const out: { line: string; n: number }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, i) => {
    const m = /^\s*(```+|~~~+)/.exec(line);
    if (m) {
      if (fence === undefined) fence = m[1]![0]!;
      else if (m[1]![0] === fence) fence = undefined;
      return;
    }
    if (fence === undefined) out.push({ line, n: i + 1 });
  });
  return out;
}

/**
 * A heading's anchor as GitHub makes it: the heading's text (links as their
 * text, no code or emphasis marks), lowercased, every character but letters,
 * digits, '_', '-' and spaces removed, spaces made '-'; a repeated anchor gets
 * -1, -2, ...
 */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { line } of prose(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const plain = m[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/[`*]/g, '');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

/** Inline links and images outside code: `[text](target)`, the target without a title. */
function links(text: string): { target: string; n: number }[] {
  const out: { target: string; n: number }[] = [];
  for (const { line, n } of prose(text)) {
    const noCode = line.replace(/`[^`]*`/g, '');
    for (const m of noCode.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ target: m[1]!, n });
  }
  return out;
}

describe('links in the documentation', () => {
  it('the pages exist', () => {
    for (const p of PAGES) expect(existsSync(join(repoRoot, p)), p).toBe(true);
    expect(PAGES.filter((p) => p.startsWith('docs/')).length).toBeGreaterThan(1);
  });

  it.each(PAGES)('%s: every relative link resolves, and every #anchor names a heading there', (page) => {
    const file = join(repoRoot, page);
    const text = readFileSync(file, 'utf8');
    const broken: string[] = [];
    for (const { target, n } of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: ...
      const [path, anchor] = target.split('#', 2) as [string, string | undefined];
      const dest = path === '' ? file : join(dirname(file), decodeURIComponent(path));
      if (!existsSync(dest)) {
        broken.push(`${page}:${n}: ${target}: no ${relative(repoRoot, dest)}`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (statSync(dest).isDirectory() || !dest.endsWith('.md')) {
        broken.push(`${page}:${n}: ${target}: an anchor into something that is not a markdown page`);
        continue;
      }
      if (!anchors(readFileSync(dest, 'utf8')).has(anchor)) broken.push(`${page}:${n}: ${target}: no heading with anchor #${anchor} in ${relative(repoRoot, dest)}`);
    }
    expect(broken).toEqual([]);
  });

  it("anchors follow GitHub's rule", () => {
    const a = anchors(['# Entry engine (`src/entries/`)', '## Migrating from spire-controller-manager', '### What `plan` says: a dry run!', '## Notes', '## Notes', '```', '# not a heading', '```'].join('\n'));
    expect([...a]).toEqual(['entry-engine-srcentries', 'migrating-from-spire-controller-manager', 'what-plan-says-a-dry-run', 'notes', 'notes-1']);
  });
});

describe('README.md is a first page', () => {
  const lines = readFileSync(join(repoRoot, 'README.md'), 'utf8').replace(/\n$/, '').split('\n');

  it('is at most 210 lines: what does not fit goes to docs/', () => {
    expect(lines.length).toBeLessThanOrEqual(210);
  });

  it('has no line over 160 characters', () => {
    expect(lines.map((l, i) => [i + 1, l.length] as const).filter(([, len]) => len > 160)).toEqual([]);
  });
});
