/**
 * docs/configuration.md's table of keys, drawn from the key table
 * (src/api/config-keys.ts): one row per key of the file, upstream's keys
 * first, then ours. `npm run docs:config` redraws it in the page;
 * test/config/config-doc.test.ts fails while the page's table differs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONFIG_KEYS } from '../src/api/config-keys.js';
import { duration } from '../src/api/config-readers.js';
import { type FileOnlyKey, keysOfFile, type Setting } from '../src/api/config-table.js';

export const CONFIG_PAGE = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));

/** The line above the table in the page; the table is the lines starting with `|` that follow it. */
const TABLE_MARK = '<!-- This table is drawn from src/api/config-keys.ts: edit the keys there, then run npm run docs:config. -->';

type Key = { path: string; entry: Setting<unknown> | FileOnlyKey };

export function keyTable(): string {
  const keys = keysOfFile(CONFIG_KEYS);
  const ordered = [...keys.filter((k) => k.entry.upstream.is !== 'ours'), ...keys.filter((k) => k.entry.upstream.is === 'ours')];
  return ["| field | ours | upstream's | notes |", '|---|---|---|---|', ...ordered.map(row)].join('\n');
}

function row({ path, entry }: Key): string {
  const { upstream } = entry;
  const field = upstream.is === 'ours' ? `**\`${path}\`** (ours)` : `\`${path}\``;
  const ours = upstream.is === 'upstream' && upstream.deliberate ? `**${shownDefault(entry)}**` : shownDefault(entry);
  const theirs = upstream.is === 'same' ? 'the same' : upstream.shows;
  return `|${[field, ours, theirs, entry.doc].map((cell) => (cell ? ` ${cell} ` : ' ')).join('|')}|`;
}

function shownDefault(entry: Setting<unknown> | FileOnlyKey): string {
  if (entry.kind === 'fileOnly' || entry.shown !== undefined) return entry.shown ?? '';
  if (entry.required) return 'required';
  if (entry.default === undefined) return 'unset';
  if (entry.read === duration) return `\`${goDuration(entry.default as number)}\``;
  return (Array.isArray(entry.default) ? entry.default : [entry.default]).map((v) => (v === '' ? '`""`' : `\`${String(v)}\``)).join(', ');
}

/** Milliseconds as a Go duration without its zero parts: 90000 is 1m30s, 3600000 is 1h. */
function goDuration(ms: number): string {
  const units: [number, string][] = [
    [3_600_000, 'h'],
    [60_000, 'm'],
    [1_000, 's'],
    [1, 'ms'],
  ];
  let rest = ms;
  let out = '';
  for (const [size, unit] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out || '0s';
}

/** The page with its table of keys drawn afresh. */
export function withKeyTable(page: string): string {
  const lines = page.split('\n');
  const mark = lines.indexOf(TABLE_MARK);
  if (mark < 0) throw new Error(`${CONFIG_PAGE} has no line ${TABLE_MARK}`);
  let end = mark + 1;
  while (lines[end]?.startsWith('|')) end++;
  return [...lines.slice(0, mark + 1), keyTable(), ...lines.slice(end)].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(CONFIG_PAGE, withKeyTable(readFileSync(CONFIG_PAGE, 'utf8')));
}
