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

    // A pod event: a pod pass reports the failure, then the follow-up full pass reports it again.
    w.kube.create(pod('default', 'bad', { app: 'bad' }));
    const failures = () => all().filter((l) => l.msg.includes('default/bad'));
    await eventually(() => failures().length >= 2, 'the pod pass and the full pass after it report the bad pod');
    const [podPass, fullPass] = failures();
    expect(podPass!.reconcileID).toBeDefined();
    expect(fullPass!.reconcileID).toBeDefined();
    expect(new Set([first.reconcileID, podPass!.reconcileID, fullPass!.reconcileID]).size).toBe(3);
    // The full pass's own lines share its ID: its failure line and its "reconciled" line.
    await eventually(() => fullPasses().some((l) => l.reconcileID === fullPass!.reconcileID), 'the full pass that reported the failure says it reconciled');
    // Lines outside a pass carry none.
    expect(all().find((l) => l.msg === 'live mode started')?.reconcileID).toBeUndefined();
  });
});
