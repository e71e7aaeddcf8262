import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { explainObjectCommand } from '../../src/cli/explain.js';
import { runOnce } from '../../src/cli/one-pass.js';
import { csid, eventually, memoryLog, node, ns, pod, startWorld, TD, type World } from '../live/world.js';
import { expectPromisesKept, FaultLedger, PROMISES_KEPT } from './ledger.js';

const PODS = 1000;
const GROUP = 'spire.spiffe.io/v1alpha1';
const quiet = pino({ level: 'silent' });

/**
 * Two ClusterSPIFFEIDs that fail for every pod, each pod's message its own:
 * a DNS name and a SPIFFE ID (its trust domain) rendered from the pod's name.
 */
const BROKEN = {
  dns: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/dns/{{ .PodMeta.Name }}', dnsNameTemplates: ['{{ .PodMeta.Name }}.shop.'] },
  td: { spiffeIDTemplate: 'spiffe://{{ .PodMeta.Name }}.org/x' },
};
const NAMES = Object.keys(BROKEN);

type Event = { reason: string; message: string; involvedObject: { kind: string; name: string } };

describe('fault: 1,000 pods each failing with its own message make one log line and one Event per object and cause (issue 25, item 2)', () => {
  let w: World;
  afterEach(async () => {
    await w.close();
  });

  it('one line and one Event per object when the failures appear and when their set changes, none from passes that find them the same; plan and explain list every pod', async () => {
    w = await startWorld();
    const ledger = new FaultLedger('1,000 pods failing with a message each', w.spire.server);
    ledger.seedForeign();
    w.kube.create(ns('shop'));
    w.kube.create(node('node-1'));
    for (let i = 0; i < PODS; i++) w.kube.create(pod('shop', `web-${i}`));
    const { log, lines } = memoryLog('warn');
    const live = await w.start({ log });
    // The first full pass's probe writes and deletes an entry of its own: counted from after it.
    await live.idle();
    ledger.start();

    for (const [name, spec] of Object.entries(BROKEN)) w.kube.create(csid(name, spec));
    ledger.clockFrom();
    const stats = (name: string) => (w.kube.get(GROUP, 'ClusterSPIFFEID', name) as { status?: { stats?: { podEntryRenderFailures: number } } }).status?.stats;
    const failing = (n: number) => NAMES.every((name) => stats(name)?.podEntryRenderFailures === n);
    await eventually(() => failing(PODS), 'each object counts every pod as a render failure', 60_000);
    ledger.converged();

    // The controller's JSON log lines and the Events in the API server, about each broken object.
    const linesAbout = (name: string) => lines.filter((l) => l.msg.startsWith(`ClusterSPIFFEID/${name}:`)).map((l) => l.msg);
    const events = (name: string) => (w.kube.list('v1', 'Event', 'default') as Event[]).filter((e) => e.involvedObject.kind === 'ClusterSPIFFEID' && e.involvedObject.name === name);
    await live.idle();
    await eventually(() => NAMES.every((n) => events(n).length > 0), 'the Events are recorded');

    // When they appear: one line and one Event per object, with the count and three examples.
    for (const name of NAMES) {
      expect(linesAbout(name)).toHaveLength(1);
      expect(events(name).map((e) => [e.reason, e.message])).toEqual([['RenderFailed', linesAbout(name)[0]!.slice(`ClusterSPIFFEID/${name}: `.length)]]);
    }
    expect(linesAbout('dns')[0]).toBe(
      'ClusterSPIFFEID/dns: 1000 pods: spec.dnsNameTemplates[0] renders an invalid DNS name: domain ends with dot (e.g. shop/web-0: "web-0.shop.", shop/web-1: "web-1.shop.", shop/web-10: "web-10.shop.")',
    );
    expect(linesAbout('td')[0]).toBe(
      `ClusterSPIFFEID/td: 1000 pods: spec.spiffeIDTemplate renders a SPIFFE ID outside trust domain "${TD}" (e.g. shop/web-0: "spiffe://web-0.org/x", shop/web-1: "spiffe://web-1.org/x", shop/web-10: "spiffe://web-10.org/x")`,
    );

    // Full passes that find the same failures say nothing more.
    const quietFrom = live.passes();
    for (let i = 0; i < 3; i++) {
      live.trigger();
      await live.idle();
    }
    expect(live.passes() - quietFrom).toBeGreaterThanOrEqual(3);
    for (const name of NAMES) expect(linesAbout(name)).toHaveLength(1);

    // The set changes (one pod gone, two new): pod passes for them, then the full pass after them
    // says each object's new count once.
    w.kube.delete('v1', 'Pod', 'web-0', 'shop');
    w.kube.create(pod('shop', `web-${PODS}`));
    w.kube.create(pod('shop', `web-${PODS + 1}`));
    await eventually(() => failing(PODS + 1), 'the statuses count the new set', 30_000);
    await eventually(() => NAMES.every((n) => events(n).some((e) => e.message.startsWith(`${PODS + 1} pods: `))), 'an Event with the new count for each object', 30_000);
    await live.idle();
    for (const name of NAMES) {
      expect(linesAbout(name)).toHaveLength(2);
      expect(linesAbout(name)[1]).toMatch(new RegExp(`^ClusterSPIFFEID/${name}: ${PODS + 1} pods: .* \\(e\\.g\\. shop/web-1: .*, shop/web-10: .*, shop/web-100: .*\\)$`));
      expect(events(name)).toHaveLength(2);
    }
    // Every warn line of the controller, over every pass: these four and nothing per pod.
    expect(lines.filter((l) => l.msg.includes('shop/web-')).length).toBe(2 * NAMES.length);

    // plan and explain read the cluster themselves: every pod, each with its own message.
    const config = join(w.spire.dir, 'explain.yaml');
    writeFileSync(config, stringify({ trustDomain: TD, clusterName: 'demo', clusterDomain: 'cluster.local', spireServerSocketPath: w.spire.socketPath }));
    const cli = { log: quiet, kubeConfig: () => w.kube.kubeConfig() };
    const { explanation } = await explainObjectCommand('dns', { config, output: 'json' }, { ...cli, print: () => {} });
    const failures = explanation.pods.renderFailures;
    expect(failures).toHaveLength(PODS + 1);
    expect(new Set(failures.map((f) => f.message)).size).toBe(PODS + 1);
    expect(failures.find((f) => f.pod === 'shop/web-7')?.message).toBe('failed to render DNS name: invalid DNS name "web-7.shop.": domain ends with dot');
    let out = '';
    await runOnce({ config, output: 'json' }, { ...cli, apply: false, print: (s) => (out += s) });
    const plan = JSON.parse(out) as { renderFailures: { object: string; pod: string; message: string }[] };
    for (const name of NAMES) {
      const listed = plan.renderFailures.filter((f) => f.object === `ClusterSPIFFEID/${name}`);
      expect(listed).toHaveLength(PODS + 1);
      expect(new Set(listed.map((f) => f.message)).size).toBe(PODS + 1);
    }

    const report = ledger.report();
    expect(expectPromisesKept(report)).toEqual(PROMISES_KEPT);
    expect(report.entriesAfter).toBe(report.entriesBefore);
  }, 120_000);
});
