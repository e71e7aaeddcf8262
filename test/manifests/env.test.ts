import { describe, expect, it } from 'vitest';
import { expandEnv, loadManifests } from '../../src/manifests/index.js';
import { writeTree } from './tree.js';

describe('environment variables are expanded as Go os.ExpandEnv does', () => {
  const env = { TD: 'example.org', A: 'a', A_1: 'x', '1': 'one', '$': 'pid' };

  it.each([
    ['spiffe://${TD}/x', 'spiffe://example.org/x'],
    ['spiffe://$TD/x', 'spiffe://example.org/x'],
    ['$A_1-$A', 'x-a'],
    ['${UNSET}|$UNSET|', '||'],
    ['price: 5$', 'price: 5$'],
    ['50$ and $%', '50$ and $%'],
    ['${}after', 'after'],
    ['${unterminated', 'unterminated'],
    ['$1 ${1} $$', 'one one pid'],
    ['no dollars', 'no dollars'],
  ])('%j -> %j', (input, output) => {
    expect(expandEnv(input, env)).toBe(output);
  });
});

describe('expandEnv controls whether files are expanded', () => {
  const file = `apiVersion: spire.spiffe.io/v1alpha1
kind: ClusterStaticEntry
metadata:
  name: node-\${NODE}
spec:
  spiffeID: spiffe://\${TRUST_DOMAIN}/hosts/$NODE
  parentID: spiffe://\${TRUST_DOMAIN}/spire/server
  selectors: ["tpm:pub_hash:\${MISSING}"]
`;

  it('substitutes $VAR and ${VAR}, unset ones as empty, when on', async () => {
    const root = await writeTree({ 'e.yaml': file });
    const set = await loadManifests([root], { expandEnv: true, env: { NODE: 'foo', TRUST_DOMAIN: 'example.org' } });
    expect(set.problems).toEqual([]);
    expect(set.clusterStaticEntries[0]?.metadata.name).toBe('node-foo');
    expect(set.clusterStaticEntries[0]?.spec).toMatchObject({
      spiffeID: 'spiffe://example.org/hosts/foo',
      parentID: 'spiffe://example.org/spire/server',
      selectors: ['tpm:pub_hash:'],
    });
  });

  it('uses process.env when no env is given', async () => {
    const root = await writeTree({ 'n.yaml': file.replace('${NODE}', '${SPIRE_RECONCILER_TEST_NODE}') });
    process.env.SPIRE_RECONCILER_TEST_NODE = 'from-process';
    try {
      const set = await loadManifests([root], { expandEnv: true });
      expect(set.clusterStaticEntries[0]?.metadata.name).toBe('node-from-process');
    } finally {
      delete process.env.SPIRE_RECONCILER_TEST_NODE;
    }
  });

  it('leaves the text alone when off', async () => {
    const root = await writeTree({ 'e.yaml': file });
    const set = await loadManifests([root], { env: { NODE: 'foo', TRUST_DOMAIN: 'example.org' } });
    expect(set.clusterStaticEntries[0]?.metadata.name).toBe('node-${NODE}');
    expect(set.clusterStaticEntries[0]?.spec.spiffeID).toBe('spiffe://${TRUST_DOMAIN}/hosts/$NODE');
  });
});
