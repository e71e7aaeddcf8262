import { CoreV1Api, CustomObjectsApi, type KubeConfig, KubernetesObjectApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { clusterSPIFFEID, failure, GROUP, pod, VERSION } from './helpers.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
const apply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

interface Cr {
  metadata: { name: string; generation: number; resourceVersion: string; labels?: Record<string, string>; managedFields?: { manager: string; operation: string; subresource?: string }[] };
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}

describe('patches through the fake API server change what the patch type and subresource allow', () => {
  let server: FakeKubeApiServer;
  let kc: KubeConfig;
  let co: CustomObjectsApi;
  const base = { group: GROUP, version: VERSION, plural: 'clusterspiffeids', name: 'web' };

  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
    kc = server.kubeConfig();
    co = kc.makeApiClient(CustomObjectsApi);
    await co.createClusterCustomObject({ group: GROUP, version: VERSION, plural: 'clusterspiffeids', body: clusterSPIFFEID('web', { className: 'a' }) });
  });
  afterEach(async () => {
    await server.close();
  });

  it('a merge patch of /status writes status only, without bumping generation', async () => {
    const before = (await co.getClusterCustomObject(base)) as Cr;
    const after = (await co.patchClusterCustomObjectStatus(
      { ...base, body: { status: { stats: { entriesToSet: 2 } }, spec: { className: 'ignored' }, metadata: { labels: { ignored: 'yes' } } } },
      merge,
    )) as Cr;
    expect(after.status).toEqual({ stats: { entriesToSet: 2 } });
    expect(after.spec).toEqual(before.spec);
    expect(after.metadata.labels).toBeUndefined();
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion));
  });

  it('a merge patch of the object changes spec (bumping generation) and never status', async () => {
    await co.patchClusterCustomObjectStatus({ ...base, body: { status: { stats: { podsSelected: 1 } } } }, merge);
    const after = (await co.patchClusterCustomObject(
      { ...base, body: { spec: { className: 'b', hint: 'h' }, status: { stats: { podsSelected: 99 } } } },
      merge,
    )) as Cr;
    expect(after.spec).toMatchObject({ className: 'b', hint: 'h' });
    expect(after.status).toEqual({ stats: { podsSelected: 1 } });
    expect(after.metadata.generation).toBe(2);
    const labelled = (await co.patchClusterCustomObject({ ...base, body: { metadata: { labels: { x: 'y' } } } }, merge)) as Cr;
    expect(labelled.metadata.generation).toBe(2);
    // null removes a field in a merge patch.
    const cleared = (await co.patchClusterCustomObject({ ...base, body: { spec: { hint: null } } }, merge)) as Cr;
    expect(cleared.spec).not.toHaveProperty('hint');
  });

  it('a JSON patch applies its operations in order, and a failed test op is 422 with nothing written', async () => {
    const after = (await co.patchClusterCustomObject(
      {
        ...base,
        body: [
          { op: 'test', path: '/spec/className', value: 'a' },
          { op: 'replace', path: '/spec/className', value: 'b' },
          { op: 'add', path: '/spec/dnsNameTemplates', value: ['x'] },
          { op: 'add', path: '/spec/dnsNameTemplates/-', value: 'y' },
        ],
      },
      jsonPatch,
    )) as Cr;
    expect(after.spec).toMatchObject({ className: 'b', dnsNameTemplates: ['x', 'y'] });
    const rv = server.resourceVersion;
    const f = await failure(
      co.patchClusterCustomObject({ ...base, body: [{ op: 'test', path: '/spec/className', value: 'a' }, { op: 'remove', path: '/spec' }] }, jsonPatch),
    );
    expect(f.code).toBe(422);
    expect(server.resourceVersion).toBe(rv);
  });

  it('a JSON patch of /status writes status only', async () => {
    const after = (await co.patchClusterCustomObjectStatus(
      { ...base, body: [{ op: 'add', path: '/status', value: { stats: { entriesMasked: 1 } } }, { op: 'replace', path: '/spec/className', value: 'z' }] },
      jsonPatch,
    )) as Cr;
    expect(after.status).toEqual({ stats: { entriesMasked: 1 } });
    expect(after.spec.className).toBe('a');
  });

  it('server-side apply of /status needs a fieldManager, records it, and leaves spec alone', async () => {
    const body = { apiVersion: `${GROUP}/${VERSION}`, kind: 'ClusterSPIFFEID', metadata: { name: 'web' }, status: { stats: { entriesToSet: 5 } } };
    const missing = await failure(co.patchClusterCustomObjectStatus({ ...base, body }, apply));
    expect(missing).toMatchObject({ code: 422, reason: 'Invalid' });
    const after = (await co.patchClusterCustomObjectStatus({ ...base, body, fieldManager: 'spire-reconciler', force: true }, apply)) as Cr;
    expect(after.status).toEqual({ stats: { entriesToSet: 5 } });
    expect(after.spec.className).toBe('a');
    expect(after.metadata.managedFields).toContainEqual(
      expect.objectContaining({ manager: 'spire-reconciler', operation: 'Apply', subresource: 'status' }),
    );
  });

  it('server-side apply of the object merges the applied fields, and creates a missing object', async () => {
    const applied = (await co.patchClusterCustomObject(
      {
        ...base,
        body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'ClusterSPIFFEID', metadata: { name: 'web' }, spec: { hint: 'h' } },
        fieldManager: 'test',
      },
      apply,
    )) as Cr;
    expect(applied.spec).toMatchObject({ className: 'a', hint: 'h' });
    const created = (await co.patchClusterCustomObject(
      {
        ...base,
        name: 'new',
        body: { ...clusterSPIFFEID('new'), status: { stats: { entriesToSet: 1 } } },
        fieldManager: 'test',
      },
      apply,
    )) as Cr;
    expect(created.metadata.generation).toBe(1);
    expect(created.status).toBeUndefined();
    const wrongKind = await failure(
      co.patchClusterCustomObject({ ...base, body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' } }, fieldManager: 'test' }, apply),
    );
    expect(wrongKind.code).toBe(400);
  });

  it('strategic merge patch is refused for custom resources with 415, and merges lists by key for pods', async () => {
    const f = await failure(co.patchClusterCustomObject({ ...base, body: { spec: { hint: 'x' } } }, strategic));
    expect(f).toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });

    const core = kc.makeApiClient(CoreV1Api);
    server.create(pod('team-a', 'web', {}, { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] }));
    const patched = await core.patchNamespacedPod(
      { namespace: 'team-a', name: 'web', body: { spec: { containers: [{ name: 'b', image: 'b:2' }] } } },
      strategic,
    );
    expect(patched.spec?.containers.map((c) => `${c.name}=${c.image}`)).toEqual(['a=a:1', 'b=b:2']);
    // The generic client defaults to strategic merge patch, and gets the same 415 for a custom resource.
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const generic = await failure(objects.patch({ apiVersion: `${GROUP}/${VERSION}`, kind: 'ClusterSPIFFEID', metadata: { name: 'web' }, spec: { hint: 'x' } }));
    expect(generic.code).toBe(415);
  });

  it('a patch without a content type client-node can send as-is defaults to JSON patch and rejects an object body', async () => {
    // client-node's generated patch methods default to application/json-patch+json.
    const f = await failure(co.patchClusterCustomObjectStatus({ ...base, body: { status: {} } }));
    expect(f.code).toBe(400);
    expect(server.requests.at(-1)?.contentType).toBe('application/json-patch+json');
  });

  it('a patch that would set the wrong resourceVersion is a 409 Conflict', async () => {
    const f = await failure(co.patchClusterCustomObject({ ...base, body: { metadata: { resourceVersion: '1' }, spec: { hint: 'x' } } }, merge));
    expect(f).toMatchObject({ code: 409, reason: 'Conflict' });
  });

  it('a patch of a missing object is 404 NotFound', async () => {
    const f = await failure(co.patchClusterCustomObjectStatus({ ...base, name: 'missing', body: { status: {} } }, merge));
    expect(f).toMatchObject({ code: 404, reason: 'NotFound', message: 'clusterspiffeids.spire.spiffe.io "missing" not found' });
  });
});
