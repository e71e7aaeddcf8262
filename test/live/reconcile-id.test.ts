import { afterEach, describe, expect, it } from 'vitest';
import { csid, eventually, memoryLog, node, ns, pod, startWorld, type World } from './world.js';

type Line = { level: number; msg: string; reconcileID?: string };

describe('every log line of a pass carries its reconcileID', () => {
  let w: World;
  afterEach(async () => {
    await w.close();
  });

  it('one ID per pass, shared by all its lines, another for the next pass', async () => {
    w = await startWorld();
    const { log, lines } = memoryLog('debug');
    w.kube.create(ns('default'));
    w.kube.create(node('node-1'));
    // Pods labelled "missing" render, the others fail to (their SPIFFE ID would end in "<no value>").
    w.kube.create(csid('ids', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/w/{{ .PodMeta.Labels.missing }}' }));
    w.kube.create(pod('default', 'good', { missing: 'here' }));
    await w.start({ log });
    await eventually(() => w.spire.server.entries.size === 1, 'the good pod has its entry');
    const all = () => lines as Line[];
    const fullPasses = () => all().filter((l) => l.msg === 'reconciled');
    await eventually(() => fullPasses().length >= 1, 'a full pass logged');
    const first = fullPasses()[0]!;
    expect(first.reconcileID).toMatch(/^[0-9a-f-]{36}$/);

    // A pod event: the pod pass reports the failure (a cause not reported before).
    w.kube.create(pod('default', 'bad', { app: 'bad' }));
    const about = (name: string) => all().filter((l) => l.msg.includes(`default/${name}`));
    await eventually(() => about('bad').length >= 1, 'the pod pass reports the bad pod');
    const podPass = about('bad')[0];
    // Another pod failing for that cause: its pod pass adds nothing, and the full pass after it
    // reports the two pods in one line.
    w.kube.create(pod('default', 'worse', { app: 'worse' }));
    await eventually(() => about('worse').length >= 1, 'the full pass after the pod events reports both pods');
    const fullPass = about('worse')[0];
    expect(fullPass!.msg).toMatch(/^ClusterSPIFFEID\/ids: 2 pods: .* \(e\.g\. default\/bad, default\/worse\)$/);
    expect(podPass!.reconcileID).toBeDefined();
    expect(fullPass!.reconcileID).toBeDefined();
    expect(new Set([first.reconcileID, podPass!.reconcileID, fullPass!.reconcileID]).size).toBe(3);
    // The full pass's own lines share its ID: its failure line and its "reconciled" line.
    await eventually(() => fullPasses().some((l) => l.reconcileID === fullPass!.reconcileID), 'the full pass that reported the failure says it reconciled');
    // Lines outside a pass carry none.
    expect(all().find((l) => l.msg === 'live mode started')?.reconcileID).toBeUndefined();
  });
});
