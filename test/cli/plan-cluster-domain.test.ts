/**
 * plan renders with the cluster domain run would: the config's, else the one
 * DNS names (detected as run detects it, manager/cluster-domain.ts, tested
 * against a real resolver in test/live/cluster-domain.test.ts), and says
 * which it used, or what a domain it could not find changes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runOnce } from '../../src/cli/one-pass.js';
import type { PlanReport } from '../../src/cli/report.js';

const quiet = pino({ level: 'silent' });

const objects = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', uid: 'ns-shop' } },
  { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'node-1' }, spec: {} },
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-0', namespace: 'shop', uid: 'pod-web-0', labels: { app: 'web' } }, spec: { nodeName: 'n1' }, status: { phase: 'Running' } },
  {
    apiVersion: 'spire.spiffe.io/v1alpha1',
    kind: 'ClusterSPIFFEID',
    metadata: { name: 'web', uid: 'csid-web' },
    spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/web/{{ .PodMeta.Name }}', dnsNameTemplates: ['{{ .PodMeta.Name }}.{{ .PodMeta.Namespace }}.svc.{{ .ClusterDomain }}'] },
  },
  { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name: 'plain', uid: 'csid-plain' }, spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/plain/{{ .PodMeta.Name }}' } },
];

describe('plan finds the cluster domain as run does, and says where it came from', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'plan-domain-'));
    mkdirSync(join(dir, 'm'));
    writeFileSync(join(dir, 'm', 'all.yaml'), stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
    writeFileSync(join(dir, 'entries.json'), JSON.stringify({ entries: [] }));
    // The chart's way: no clusterDomain in the file.
    writeFileSync(join(dir, 'config.yaml'), stringify({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ControllerManagerConfig', trustDomain: 'example.org', clusterName: 'c' }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function plan(detected: string | undefined, clusterDomain?: string): Promise<PlanReport> {
    let out = '';
    let asked = 0;
    await runOnce(
      { config: join(dir, 'config.yaml'), manifests: [join(dir, 'm')], entries: join(dir, 'entries.json'), output: 'json', ...(clusterDomain !== undefined ? { clusterDomain } : {}) },
      {
        apply: false,
        log: quiet,
        print: (s) => (out += s),
        detectClusterDomain: async () => {
          asked++;
          return detected;
        },
      },
    );
    const report = JSON.parse(out) as PlanReport;
    return Object.assign(report, { asked });
  }

  it('detected (in a pod of the cluster): rendered with it, and said', async () => {
    const r = await plan('cluster.local');
    expect(r.create.find((c) => c.spiffeID.endsWith('/web/web-0'))?.dnsNames).toEqual(['web-0.shop.svc.cluster.local']);
    expect(r.renderFailures).toEqual([]);
    expect(r.notes).toContain('clusterDomain is not set: cluster.local, detected from DNS (the canonical name of kubernetes.default.svc) as run detects it');
  });

  it('not detected (outside the cluster): the objects whose DNS names depend on it are named, with the way out', async () => {
    const r = await plan(undefined);
    expect(r.renderFailures.map((f) => f.pod)).toEqual(['shop/web-0']);
    const note = r.notes.find((n) => n.startsWith('clusterDomain is not set and DNS here does not name kubernetes.default.svc'));
    expect(note).toContain('the DNS names of ClusterSPIFFEID/web depend on it, so this plan may differ from run\'s there. Pass --cluster-domain');
    expect(note).not.toContain('ClusterSPIFFEID/plain');
  });

  it('given by --cluster-domain (or the config): used as it is, nothing detected, nothing said', async () => {
    const r = (await plan('other.example', 'cluster.local')) as PlanReport & { asked: number };
    expect(r.asked).toBe(0);
    expect(r.create.find((c) => c.spiffeID.endsWith('/web/web-0'))?.dnsNames).toEqual(['web-0.shop.svc.cluster.local']);
    expect(r.notes.filter((n) => n.includes('clusterDomain'))).toEqual([]);
  });
});
