import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { csid, eventually, node, ns, pod, startWorld, type World } from './world.js';

const SA_TEMPLATE = 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}';

type Cached = { metadata: Record<string, unknown>; spec: Record<string, unknown>; status?: unknown };

/** A pod as a Deployment would make it: more than any template here reads. */
const fullPod = (name: string) => {
  const p = pod('team-a', name);
  return {
    ...p,
    metadata: { ...p.metadata, annotations: { owner: 'alice', 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00Z' } },
    spec: { ...p.spec, hostname: `${name}-0`, containers: [{ name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }] }], tolerations: [{ key: 'k', operator: 'Exists' }] },
  };
};

describe('the pod cache keeps what ClusterSPIFFEIDs read', () => {
  let w: World;
  const paths = () => w.spire.server.entries.all().map((e) => e.spiffeId.path).sort();
  const cached = (name: string) => w.controllers[0]!.live.cache.get<Cached>('pods', name, 'team-a');

  beforeEach(async () => {
    w = await startWorld();
    w.kube.create(ns('team-a', { team: 'a' }));
    w.kube.create(node('node-1'));
    w.kube.create(csid('by-sa', { spiffeIDTemplate: SA_TEMPLATE, namespaceSelector: { matchLabels: { team: 'a' } } }));
  });
  afterEach(async () => {
    await w.close();
  });

  it('keeps the fields the templates and the engine read, from the list and from the watch', async () => {
    w.kube.create(fullPod('listed'));
    await w.start();
    w.kube.create(fullPod('watched'));
    await eventually(() => paths().length === 2, 'both entries');
    for (const name of ['listed', 'watched']) {
      const p = cached(name)!;
      expect(Object.keys(p.metadata).sort()).toEqual(['labels', 'name', 'namespace', 'resourceVersion', 'uid']);
      expect(p.spec).toEqual({ nodeName: 'node-1', serviceAccountName: `${name}-sa` });
      expect(p.status).toEqual({ phase: 'Running' });
    }
  });

  it('lists the pods again when a template starts reading a field not kept, and never renders without it', async () => {
    w.kube.create(fullPod('web'));
    const live = await w.start();
    await eventually(() => paths().join() === '/ns/team-a/sa/web-sa', 'the first entry');
    expect(cached('web')!.spec.hostname).toBeUndefined();

    // The second list of pods is held: meanwhile the template change and a pod event must write nothing
    // (from the narrow cache, the new template would render /host/- for every pod).
    const release = w.kube.faults.hangNext(1, { method: 'GET', pathIncludes: '/pods', queryIncludes: 'limit=' });
    const obj = w.kube.get('spire.spiffe.io/v1alpha1', 'ClusterSPIFFEID', 'by-sa') as { spec: Record<string, unknown> };
    w.kube.update({ ...obj, spec: { ...obj.spec, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/host/{{ .PodSpec.Hostname }}-{{ index .PodMeta.Annotations "owner" }}' } });
    await eventually(() => !live.cache.podsCoverTemplates(), 'the template change is seen');
    w.kube.create(fullPod('api'));
    await eventually(() => live.cache.get('pods', 'api', 'team-a') !== undefined, 'the pod event is seen');
    const passes = live.passes();
    live.trigger();
    await eventually(() => live.passes() > passes, 'a pass ran');
    await live.idle();
    expect(paths()).toEqual(['/ns/team-a/sa/web-sa']);

    release();
    await eventually(() => paths().join() === '/host/api-0-alice,/host/web-0-alice', 'the entries rendered from the fields now kept');
    expect(cached('web')!.spec).toMatchObject({ hostname: 'web-0' });
    expect(cached('web')!.metadata.annotations).toEqual({ owner: 'alice', 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00Z' });
    expect(live.cache.podsCoverTemplates()).toBe(true);

    // Pod events after the wider list are reconciled as ever, from the wider cache.
    w.kube.create(fullPod('db'));
    await eventually(() => paths().includes('/host/db-0-alice'), "the new pod's entry");
  });
});
