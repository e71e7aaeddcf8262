import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { csid, eventually, node, ns, pod, startWorld, TD, type World } from './world.js';

describe('the start-up log recognises entries left by spire-controller-manager or by an earlier version', () => {
  let w: World;
  afterEach(async () => {
    await w.close();
  });

  it('upstream without entryIDPrefix: says what to set, with counts; entries of our earlier defaults stay in place', async () => {
    w = await startWorld();
    w.kube.create(ns('default'));
    const nodeUid = w.kube.create(node('node-1')).metadata!.uid!;
    w.kube.create(csid('all', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/pod/{{ .PodMeta.Name }}' }));
    const uid = (name: string) => w.kube.create(pod('default', name)).metadata!.uid!;
    const [a, b, c] = [uid('a'), uid('b'), uid('c')];
    const parent = { trust_domain: TD, path: `/spire/agent/k8s_psat/demo/${nodeUid}` };
    const entry = (id: string, name: string, podUid: string) => ({ id, parent_id: parent, spiffe_id: { trust_domain: TD, path: `/pod/${name}` }, selectors: [{ type: 'k8s', value: `pod-uid:${podUid}` }] });
    w.spire.server.seed({
      entries: [
        // What upstream without entryIDPrefix leaves: server-generated IDs, for a live pod and for one long gone.
        entry('0b8e5d1c-0000-4000-8000-000000000001', 'a', a),
        entry('0b8e5d1c-0000-4000-8000-000000000002', 'gone', 'uid-gone'),
        // What this controller made under its earlier defaults: scm-<uuid>, then <clusterName>.<uuid>.
        entry('scm-0b8e5d1c-0000-4000-8000-000000000003', 'b', b),
        entry('demo.0b8e5d1c-0000-4000-8000-000000000004', 'c', c),
      ],
    });
    const lines: { level: number; msg: string }[] = [];
    const log = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l) as { level: number; msg: string }) });
    const live = await w.start({ log });
    await eventually(() => lines.some((l) => l.msg.startsWith('migration: to take them over')), 'the migration advice is logged');
    await live.idle();

    const text = lines.map((l) => l.msg);
    expect(text).toContainEqual(expect.stringMatching(/^migration: 1 declared entry is held by entries with server-generated IDs .* and 1 more such pod entry under this cluster's agents is declared by nothing/));
    expect(text).toContainEqual(expect.stringContaining('set entryIDPrefixCleanup: "" for one pass, then remove it: this pass it would delete 2 entries'));
    expect(text).toContainEqual(expect.stringContaining('set entryScope: all'));
    expect(text).toContainEqual(expect.stringContaining('new entries get IDs starting scm-demo. (derived from clusterName). 1 entry with the former default prefix scm- is this cluster\'s'));
    expect(text).toContainEqual(expect.stringContaining('1 entry with the former default prefix demo. is this cluster\'s (the prefix names it)'));
    // Nothing of upstream's was deleted, and b's and c's entries kept their IDs: managed in place, not recreated.
    const ids = w.spire.server.entries.all().map((e) => e.id).sort();
    expect(ids).toEqual(['0b8e5d1c-0000-4000-8000-000000000001', '0b8e5d1c-0000-4000-8000-000000000002', 'demo.0b8e5d1c-0000-4000-8000-000000000004', 'scm-0b8e5d1c-0000-4000-8000-000000000003']);

    // Once, at start: later passes do not repeat it.
    const count = () => lines.filter((l) => l.msg.startsWith('migration:')).length;
    const before = count();
    live.trigger();
    await live.idle();
    expect(count()).toBe(before);
  });
});
