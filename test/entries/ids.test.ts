import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validate as isUuid, version as uuidVersion } from 'uuid';
import { describe, expect, it } from 'vitest';
import { newEntryId, planEntries } from '../../src/entries/index.js';
import { repoRoot } from '../support/cli.js';
import { declared, owner, spec } from './fixtures.js';

describe('entry IDs', () => {
  it('are the prefix and a version 4 UUID made by the uuid package, a runtime dependency (the image installs it)', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies.uuid).toBeDefined();
    const ids = Array.from({ length: 1000 }, () => newEntryId('scm-'));
    for (const id of ids) {
      expect(id.startsWith('scm-')).toBe(true);
      const uuid = id.slice('scm-'.length);
      expect(isUuid(uuid)).toBe(true);
      expect(uuidVersion(uuid)).toBe(4);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(newEntryId('').length).toBe(36);
  });

  it('a planned create gets one, with the configured prefix', () => {
    const plan = planEntries({ declared: [declared(spec(), owner('a'))], current: [], ownership: { entryIDPrefix: 'cluster1.', entryScope: 'prefixed' }, policy: 'sync' });
    expect(plan.creates).toHaveLength(1);
    const id = plan.creates[0]!.id;
    expect(id.startsWith('cluster1.')).toBe(true);
    expect(uuidVersion(id.slice('cluster1.'.length))).toBe(4);
  });
});
