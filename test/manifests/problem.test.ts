import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/manifests/index.js';

describe('a problem prints as one line naming where it is', () => {
  it('with every part known', () => {
    expect(
      formatProblem({ file: 'm/a.yaml', document: 2, severity: 'error', kind: 'ClusterSPIFFEID', name: 'web', field: 'spec.ttl', message: 'must be string' }),
    ).toBe('m/a.yaml doc 2: ClusterSPIFFEID/web: spec.ttl: must be string');
  });

  it('leaving out the unknown parts', () => {
    expect(formatProblem({ file: 'm/a.yaml', document: 0, severity: 'error', message: 'YAML syntax error: x' })).toBe('m/a.yaml doc 0: YAML syntax error: x');
    expect(formatProblem({ file: 'm/a.yaml', document: 1, severity: 'error', field: 'items[0].kind', message: 'is required' })).toBe(
      'm/a.yaml doc 1: items[0].kind: is required',
    );
    expect(formatProblem({ file: 'gone', document: -1, severity: 'error', message: 'cannot read: ENOENT' })).toBe('gone: cannot read: ENOENT');
    expect(formatProblem({ file: 'a.yaml', document: 0, severity: 'warning', kind: 'Pod', field: 'metadata.name', message: 'is required' })).toBe(
      'a.yaml doc 0: Pod/?: metadata.name: is required',
    );
  });
});
