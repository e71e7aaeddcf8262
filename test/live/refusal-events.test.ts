import { afterEach, describe, expect, it } from 'vitest';
import { csid, eventually, node, ns, pod, startWorld, type World } from './world.js';

const GROUP = 'spire.spiffe.io/v1alpha1';

interface KubeEvent {
  reason: string;
  message: string;
  type: string;
  involvedObject: { kind: string; name: string };
}

/**
 * SPIRE refuses an entry that federates with a trust domain it holds no
 * bundle for (federatesWithMissingBundle: fail passes it on as declared):
 * a refusal past every check made before sending, answered by the server.
 */
describe('an entry SPIRE refuses is reported as a Warning event on the object that declared it', () => {
  let w: World;
  afterEach(async () => {
    await w.close();
  });

  const events = () => w.kube.list('v1', 'Event', 'default') as unknown as KubeEvent[];
  const refusedFor = (kind: string, name: string) => events().filter((e) => e.reason === 'EntryRefused' && e.involvedObject.kind === kind && e.involvedObject.name === name);

  it.each([
    [
      'ClusterStaticEntry',
      (world: World) =>
        world.kube.create({
          apiVersion: GROUP,
          kind: 'ClusterStaticEntry',
          metadata: { name: 'gateway' },
          spec: { spiffeID: '/gateway', parentID: '/spire/server', selectors: ['unix:uid:1000'], federatesWith: ['partner.org'] },
        }),
      'gateway',
    ],
    [
      'ClusterSPIFFEID',
      (world: World) => {
        world.kube.create(ns('default'));
        world.kube.create(node('node-1'));
        world.kube.create(csid('fed', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}', federatesWith: ['partner.org'] }));
        world.kube.create(pod('default', 'web'));
      },
      'fed',
    ],
  ] as const)('%s', async (kind, declare, name) => {
    w = await startWorld({ federatesWithMissingBundle: 'fail' });
    declare(w);
    const live = await w.start();
    await live.idle();
    // Events are posted off the pass.
    await eventually(() => refusedFor(kind, name).length > 0, 'the event is recorded');
    const [event] = refusedFor(kind, name);
    expect(event?.type).toBe('Warning');
    expect(event?.message).toMatch(/^create entry for spiffe:\/\/example\.org\/(gateway|pod\/web): INTERNAL: .*unable to find federated bundle "spiffe:\/\/partner\.org"/);
    expect(w.spire.server.entries.size).toBe(0);

    // The next pass meets the same refusal in the same words: not posted again within the rate limit.
    const passes = live.passes();
    live.trigger();
    await eventually(() => live.passes() > passes, 'another pass');
    await live.idle();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(refusedFor(kind, name)).toHaveLength(1);
  });
});
