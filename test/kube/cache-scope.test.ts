import type { KubernetesObject } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheScope, parseConfig } from '../../src/api/index.js';
import { ClusterCache } from '../../src/kube/cluster.js';
import { eventually } from '../kube-apiserver/helpers.js';
import { FakeKubeApiServer } from '../support/kube/index.js';

const log = pino({ level: 'silent' });
const pod = (namespace: string, name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels },
  spec: { nodeName: name.endsWith('-n2') ? 'node-2' : 'node-1', containers: [{ name: 'c', image: 'i' }] },
});
const csid = (name: string, labels: Record<string, string>) => ({
  apiVersion: 'spire.spiffe.io/v1alpha1',
  kind: 'ClusterSPIFFEID',
  metadata: { name, labels },
  spec: { spiffeIDTemplate: 'spiffe://example.org/x' },
});
const names = (objs: KubernetesObject[]) => objs.map((o) => `${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name}`).sort();

const config = (extra: string) => parseConfig(`trustDomain: example.org\nclusterName: c\n${extra}`, 'x').config;

describe("the live cache reads what upstream's manager cache reads: cacheNamespaces, and ClusterSPIFFEIDs by label", () => {
  let kube: FakeKubeApiServer;
  let cache: ClusterCache | undefined;
  beforeEach(async () => {
    kube = await FakeKubeApiServer.start();
    for (const ns of ['shop', 'billing', 'other']) {
      kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      kube.create(pod(ns, `web-${ns}`, { tier: 'web' }));
      kube.create(pod(ns, `db-${ns}-n2`, { tier: 'db' }));
    }
    kube.create(csid('mine', { 'spire.spiffe.io/class-name': 'spire-server-spire' }));
    kube.create(csid('theirs', { 'spire.spiffe.io/class-name': 'other' }));
    kube.create(csid('unlabelled', {}));
  });
  afterEach(async () => {
    cache?.stop();
    await kube.close();
  });

  it('pods from the cached namespaces only, each narrowed by its label and field selectors; ClusterSPIFFEIDs of our class only', async () => {
    const c = config(
      [
        'className: spire-server-spire',
        'filterByClassName: true',
        'cacheNamespaces:',
        '  shop:',
        '  billing:',
        '    labelSelectors: {tier: web}',
        '  other:',
        '    fieldSelectors: {spec.nodeName: node-2}',
      ].join('\n'),
    );
    cache = new ClusterCache({ kc: kube.kubeConfig(), log, onChange: () => {}, scope: cacheScope(c) });
    await cache.start();
    expect(names(cache.items<KubernetesObject>('pods'))).toEqual(['billing/web-billing', 'other/db-other-n2', 'shop/db-shop-n2', 'shop/web-shop']);
    expect(names(cache.items<KubernetesObject>('clusterspiffeids'))).toEqual(['mine']);
    // Cluster-scoped objects are read whole, as upstream's cache reads them.
    expect(names(cache.items<KubernetesObject>('namespaces'))).toEqual(['billing', 'other', 'shop']);
    expect(cache.get<KubernetesObject>('pods', 'web-billing', 'billing')?.metadata?.name).toBe('web-billing');

    // Watches are narrowed the same way: a new pod elsewhere never arrives, one in a cached namespace does.
    kube.create(pod('billing', 'api-billing', { tier: 'web' }));
    kube.create(pod('billing', 'cron-billing', { tier: 'batch' }));
    kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'new' } });
    kube.create(pod('new', 'web-new', { tier: 'web' }));
    await eventually(() => cache!.items<KubernetesObject>('pods').length === 5, 'the new pod in billing arrives');
    expect(names(cache.items<KubernetesObject>('pods'))).toEqual(['billing/api-billing', 'billing/web-billing', 'other/db-other-n2', 'shop/db-shop-n2', 'shop/web-shop']);
  });

  it('cacheNamespace (one namespace), and clusterSPIFFEIDLabelSelector', async () => {
    const c = config('cacheNamespace: shop\nclusterSPIFFEIDLabelSelector: {spire.spiffe.io/class-name: other}\n');
    cache = new ClusterCache({ kc: kube.kubeConfig(), log, onChange: () => {}, scope: cacheScope(c) });
    await cache.start();
    expect(names(cache.items<KubernetesObject>('pods'))).toEqual(['shop/db-shop-n2', 'shop/web-shop']);
    expect(names(cache.items<KubernetesObject>('clusterspiffeids'))).toEqual(['theirs']);
  });
});
