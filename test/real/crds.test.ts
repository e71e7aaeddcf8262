/**
 * Our CRDs on a real API server: every manifest under examples/ is accepted
 * as written, what the server stores is what the fake stores, and the status
 * the controller writes comes back whole (structural-schema pruning drops
 * every field a schema does not declare, silently).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeApiError, kubeRequest } from '../../src/kube/rest.js';
import { repoRoot } from '../support/cli.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { type ControlPlane, objectPath, startControlPlane } from '../support/real-k8s/index.js';

type Obj = { apiVersion: string; kind: string; metadata: Record<string, unknown> & { name: string; namespace?: string }; [k: string]: unknown };

/** Every object in the YAML files under `dir`, `kind: List` expanded. */
function manifests(dir: string): Obj[] {
  const out: Obj[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...manifests(path));
    else if (/\.ya?ml$/.test(name)) {
      for (const doc of parseAllDocuments(readFileSync(path, 'utf8'))) {
        const o = doc.toJS() as Obj | null;
        if (!o) continue;
        if (o.kind === 'List') out.push(...(o.items as Obj[]));
        else out.push(o);
      }
    }
  }
  return out;
}

/** What a client writes and may read back: server-set metadata and status left out. */
function written(o: Obj): Record<string, unknown> {
  const { metadata, status: _status, ...rest } = o;
  const { uid: _u, creationTimestamp: _c, resourceVersion: _r, generation: _g, managedFields: _m, ...meta } = metadata;
  return { ...rest, metadata: meta };
}

/** Creates the object, or replaces it where it exists already (the system namespaces). */
async function createOrReplace(kc: KubeConfig, o: Obj): Promise<Obj> {
  const { collection, object } = objectPath(o);
  try {
    return await kubeRequest<Obj>(kc, 'POST', collection, { body: o });
  } catch (err) {
    if (!(err instanceof KubeApiError && err.statusCode === 409)) throw err;
    const current = await kubeRequest<Obj>(kc, 'GET', object);
    // The stored object's UID: a real server takes another one in an update as a precondition that fails (409).
    return kubeRequest<Obj>(kc, 'PUT', object, { body: { ...o, metadata: { ...o.metadata, uid: current.metadata.uid, resourceVersion: current.metadata.resourceVersion } } });
  }
}

// Namespaces first: the real server refuses objects in a namespace that does not exist.
const ORDER = ['Namespace', 'Node'];
const rank = (o: Obj) => (ORDER.includes(o.kind) ? ORDER.indexOf(o.kind) : ORDER.length);

describe('our CRDs and examples on a real API server', () => {
  let plane: ControlPlane;
  let fake: FakeKubeApiServer;
  beforeAll(async () => {
    plane = await startControlPlane();
    fake = await FakeKubeApiServer.start({ namespaceLifecycle: true });
  });
  afterAll(async () => {
    await fake?.close();
    await plane?.stop();
  });

  it('reports the pinned versions', () => {
    expect(plane.versions.kubernetes).toMatch(/^v1\.\d+\.\d+$/);
    expect(plane.versions.etcd).toMatch(/^3\.\d+\.\d+$/);
  });

  it('accepts every manifest under examples/, storing what the fake stores', async () => {
    // The demo's config file is no API object.
    const objects = manifests(join(repoRoot, 'examples'))
      .filter((o) => o.kind !== 'ControllerManagerConfig')
      .sort((a, b) => rank(a) - rank(b));
    expect(objects.length).toBeGreaterThan(10);
    for (const o of objects) {
      const real = await createOrReplace(plane.admin, o);
      const faked = await createOrReplace(fake.kubeConfig(), o);
      const what = `${o.kind}/${o.metadata.name}`;
      expect(written(real), what).toEqual(written(faked));
      // Our CRDs declare every field the examples use: the server prunes nothing of their specs.
      if (o.apiVersion.startsWith('spire.spiffe.io/')) expect(written(real).spec, what).toEqual(written(o).spec);
    }
  });

  it('keeps every status field the controller writes, on all three kinds', async () => {
    const csid = { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name: 'status-round-trip' }, spec: { spiffeIDTemplate: 'spiffe://example.org/x' } };
    const cse = { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterStaticEntry', metadata: { name: 'status-round-trip' }, spec: { spiffeID: 'spiffe://example.org/s', parentID: 'spiffe://example.org/p', selectors: ['unix:uid:0'] } };
    const cftd = {
      apiVersion: 'spire.spiffe.io/v1alpha1',
      kind: 'ClusterFederatedTrustDomain',
      metadata: { name: 'status-round-trip' },
      spec: { trustDomain: 'partner.org', bundleEndpointURL: 'https://partner.org/bundle', bundleEndpointProfile: { type: 'https_web' } },
    };
    const statuses: [object, object][] = [
      [csid, { stats: { namespacesSelected: 1, namespacesIgnored: 2, podsSelected: 3, podEntryRenderFailures: 4, entriesMasked: 5, entriesToSet: 6, entryFailures: 7, entriesWithoutFederation: 8 } }],
      [cse, { rendered: true, masked: false, set: true }],
      [cftd, { set: true, bundleAvailable: false, lastError: 'SPIRE TrustDomain.BatchCreateFederationRelationship failed: UNAVAILABLE' }],
    ];
    for (const [obj, status] of statuses) {
      const { collection, object } = objectPath(obj);
      for (const [name, kc] of [
        ['real', plane.admin],
        ['fake', fake.kubeConfig()],
      ] as const) {
        await kubeRequest(kc, 'POST', collection, { body: obj });
        const patched = await kubeRequest<Obj>(kc, 'PATCH', `${object}/status`, { body: { status }, contentType: 'application/merge-patch+json' });
        expect(patched.status, `${name} ${(obj as Obj).kind}`).toEqual(status);
        expect((await kubeRequest<Obj>(kc, 'GET', object)).status, `${name} ${(obj as Obj).kind}`).toEqual(status);
      }
    }
  });
});
