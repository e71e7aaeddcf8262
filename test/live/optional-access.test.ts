/**
 * Access the controller can do without, denied (403) as RBAC denies it (the
 * SPIRE helm chart's ClusterRole grants core Endpoints but no EndpointSlices,
 * events only in its namespace, and our deploy/ one its webhook
 * configuration by name only): a warning, a metric and, where an object's
 * result depends on it, a status condition; never a readiness failure, since
 * the controller's readiness is the SPIRE server pod's.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type Condition, SERVICE_DNS_NAMES } from '../../src/kube/conditions.js';
import { ControllerMetrics } from '../../src/manager/metrics.js';
import { SpireClient } from '../../src/spire/index.js';
import { startWebhook } from '../../src/webhook/index.js';
import { parseExposition, value } from '../manager/prom-text.js';
import { testConfig, vwcObject } from '../webhook/helpers.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { startTestSpire } from '../support/spire.js';
import { csid, eventually, node, ns, pod, startWorld, type World } from './world.js';

const SA = 'system:serviceaccount:spire-server:spire-server';
const DENY_SLICES = `endpointslices.discovery.k8s.io is forbidden: User "${SA}" cannot list resource "endpointslices" in API group "discovery.k8s.io" at the cluster scope`;
const DENY_ENDPOINTS = `endpoints is forbidden: User "${SA}" cannot list resource "endpoints" in API group "" at the cluster scope`;

/** The metric's value; absent (never reported) reads as undefined. */
const forbidden = async (metrics: ControllerMetrics, resource: string) => {
  const samples = parseExposition((await metrics.expose()).body);
  return samples.samples.some((s) => s.name === 'spire_reconciler_api_forbidden' && s.labels.resource === resource) ? value(samples, 'spire_reconciler_api_forbidden', { resource }) : undefined;
};

describe('without permission to list EndpointSlices, Service DNS names come from core Endpoints', () => {
  let w: World;
  afterEach(async () => {
    await w.close();
  });

  async function world(deny: ('endpointslices' | 'endpoints')[]) {
    w = await startWorld();
    if (deny.includes('endpointslices')) w.kube.faults.forbid({ pathIncludes: '/apis/discovery.k8s.io/v1/endpointslices' }, DENY_SLICES);
    if (deny.includes('endpoints')) w.kube.faults.forbid({ pathIncludes: '/api/v1/endpoints' }, DENY_ENDPOINTS);
    w.kube.create(ns('shop'));
    w.kube.create(node('node-1'));
    w.kube.create(csid('svc', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/svc/{{ .PodMeta.Name }}', autoPopulateDNSNames: true }));
    w.kube.create(csid('plain', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/plain/{{ .PodMeta.Name }}' }));
    const api = w.kube.create(pod('shop', 'api'));
    // A Service's targets as both APIs hold them: the EndpointSlice controller mirrors Endpoints.
    const target = { kind: 'Pod', name: 'api', namespace: 'shop', uid: api.metadata!.uid };
    w.kube.create({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'api', namespace: 'shop' }, subsets: [{ addresses: [{ ip: '10.0.0.9', targetRef: target }] }] });
    w.kube.create({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'api-x1', namespace: 'shop', labels: { 'kubernetes.io/service-name': 'api' } }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.9'], targetRef: target }] });
    const metrics = new ControllerMetrics();
    const live = await w.start({ metrics });
    return { live, metrics };
  }
  const dnsNames = () => w.spire.server.entries.all().find((e) => e.spiffeId.path === '/svc/api')?.dnsNames;
  const conditions = (name: string) => (w.kube.get('spire.spiffe.io/v1alpha1', 'ClusterSPIFFEID', name) as { status?: { conditions?: Condition[] } }).status?.conditions;

  it('reads Endpoints as upstream does, reports the denial, and is synced', async () => {
    const { live, metrics } = await world(['endpointslices']);
    expect(live.cache.serviceSource).toBe('endpoints');
    await eventually(() => JSON.stringify(dnsNames()) === JSON.stringify(['api', 'api.shop', 'api.shop.svc', 'api.shop.svc.cluster.local']), 'the names from Endpoints');
    expect(live.cache.hasSynced).toBe(true);
    expect(await forbidden(metrics, 'endpointslices')).toBe(1);
    expect(await forbidden(metrics, 'endpoints')).toBe(0);
    await eventually(() => conditions('svc') !== undefined, 'the condition is written');
    expect(conditions('svc')).toEqual([
      {
        type: SERVICE_DNS_NAMES,
        status: 'True',
        reason: 'FromEndpoints',
        message: 'EndpointSlices may not be listed (403 Forbidden); Service DNS names come from core Endpoints',
        lastTransitionTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      },
    ]);
    // Only on the objects that ask for Service names.
    await live.statusWritesIdle();
    expect(conditions('plain')).toBeUndefined();
  });

  it('without either, adds no Service names, says so on the object, and is still synced', async () => {
    const { live, metrics } = await world(['endpointslices', 'endpoints']);
    expect(live.cache.serviceSource).toBe('none');
    await eventually(() => dnsNames() !== undefined, 'the entry exists');
    expect(dnsNames()).toEqual([]);
    expect(live.cache.hasSynced).toBe(true);
    expect(await forbidden(metrics, 'endpoints')).toBe(1);
    await eventually(() => conditions('svc') !== undefined, 'the condition is written');
    expect(conditions('svc')).toMatchObject([{ type: SERVICE_DNS_NAMES, status: 'False', reason: 'Forbidden', message: expect.stringContaining('may not be listed either (403 Forbidden)') }]);
  });

  it('with EndpointSlices allowed, uses them and writes no condition', async () => {
    const { live, metrics } = await world([]);
    expect(live.cache.serviceSource).toBe('endpointslices');
    await eventually(() => (dnsNames()?.length ?? 0) === 4, 'the names from EndpointSlices');
    await live.idle();
    await live.statusWritesIdle();
    expect(conditions('svc')).toBeUndefined();
    expect(await forbidden(metrics, 'endpointslices')).toBe(0);
  });

  it('a denied event is a warning and a metric; reconciling goes on', async () => {
    w = await startWorld();
    w.kube.faults.forbid({ method: 'POST', pathIncludes: '/namespaces/default/events' }, `events is forbidden: User "${SA}" cannot create resource "events" in API group "" in the namespace "default"`);
    w.kube.create(ns('shop'));
    w.kube.create(node('node-1'));
    w.kube.create(csid('broken', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Labels.missing }}' }));
    w.kube.create(csid('fine', { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/fine/{{ .PodMeta.Name }}' }));
    const metrics = new ControllerMetrics();
    await w.start({ metrics });
    w.kube.create(pod('shop', 'web'));
    await eventually(async () => (await forbidden(metrics, 'events')) === 1, 'the denial is counted');
    await eventually(() => w.spire.server.entries.all().some((e) => e.spiffeId.path === '/fine/web'), 'the other entry is written');
    expect(w.kube.list('v1', 'Event', 'default')).toEqual([]);
  });
});

describe('the webhook configuration may not be read (403)', () => {
  it('is a warning and a metric, and readiness passes without a certificate', async () => {
    const spire = await startTestSpire();
    const kube = await FakeKubeApiServer.start();
    const client = new SpireClient({ socket: spire.socketPath });
    const metrics = new ControllerMetrics();
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push((JSON.parse(line) as { reason?: string }).reason ?? line) });
    kube.create(vwcObject());
    const vwcName = (vwcObject() as { metadata: { name: string } }).metadata.name;
    kube.faults.forbid({ pathIncludes: `/validatingwebhookconfigurations/${vwcName}` }, `validatingwebhookconfigurations.admissionregistration.k8s.io "${vwcName}" is forbidden`);
    const webhook = await startWebhook({ config: testConfig(), kc: kube.kubeConfig(), spire: client, log, checkIntervalMs: 200, onOptionalAccess: (r, d) => metrics.setForbidden(r, d !== undefined) });
    try {
      await eventually(async () => (await forbidden(metrics, 'validatingwebhookconfigurations')) === 1, 'the denial is counted');
      expect(webhook.ready()).toEqual({ ok: true });
      expect(webhook.certificate()).toBeUndefined();
      expect(warnings.join('\n')).toContain(`ValidatingWebhookConfiguration "${vwcName}" may not be read (403 Forbidden)`);
    } finally {
      await webhook.close();
      client.close();
      await kube.close();
      await spire.close();
    }
  });
});
