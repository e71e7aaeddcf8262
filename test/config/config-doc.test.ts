/**
 * docs/configuration.md's table of keys says what the key table
 * (src/api/config-keys.ts) says: the same keys, defaults and upstream's
 * side, as scripts/config-doc.ts draws them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError, parseConfig } from '../../src/api/index.js';
import { CONFIG_PAGE, withKeyTable } from '../../scripts/config-doc.js';

const page = readFileSync(CONFIG_PAGE, 'utf8');

/** The field paths of the page's table of keys, from its rows' first cells. */
function documentedKeys(): string[] {
  return [...page.matchAll(/^\| (?:\*\*)?`([^`]+)`(?:\*\* \(ours\))? \|/gm)].map((m) => m[1]!);
}

/** A document giving `path` an empty value (nested as the path says). */
function documentGiving(path: string): string {
  const value = path.split('.').reduceRight<unknown>((inner, key) => ({ [key]: inner }), null);
  return stringify(value);
}

function warningsOf(text: string): string[] {
  try {
    return parseConfig(text, 'x').warnings;
  } catch (err) {
    if (err instanceof ConfigError) return err.warnings;
    throw err;
  }
}

describe("docs/configuration.md's table of keys", () => {
  it('is the key table: after changing a key, npm run docs:config redraws it', () => {
    expect(page, 'docs/configuration.md differs from src/api/config-keys.ts: npm run docs:config redraws its table').toBe(withKeyTable(page));
  });

  it('names keys the config file reads, each once', () => {
    const keys = documentedKeys();
    expect(keys.length).toBeGreaterThan(40);
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(warningsOf(documentGiving(key)).filter((w) => w.includes('unknown field')), key).toEqual([]);
  });
});
