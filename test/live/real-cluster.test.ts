import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { defaultConfig } from '../../src/api/index.js';
import { passOptions } from '../../src/cli/context.js';
import { KubeApiError, kubeRequest } from '../../src/kube/rest.js';
import { type LiveController, startLive } from '../../src/manager/live.js';
import { repoRoot } from '../support/cli.js';
import { startTestSpire, type TestSpire } from '../support/spire.js';
import { eventually } from './world.js';

/**
 * The live scenarios against a real cluster. Opt-in twice (KUBECONFIG and
 * SPIRE_RECONCILER_REAL_CLUSTER=1), because it creates a namespace, a
 * ClusterSPIFFEID and pods there. It installs the CRDs if they are missing,
 * handles only its own class, and removes what it created.
 */
const enabled = Boolean(process.env.KUBECONFIG) && process.env.SPIRE_RECONCILER_REAL_CLUSTER === '1';
const suffix = randomBytes(3).toString('hex');
const namespace = `spire-reconciler-e2e-${suffix}`;
const className = `e2e-${suffix}`;

describe.skipIf(!enabled)('against a real cluster (KUBECONFIG, SPIRE_RECONCILER_REAL_CLUSTER=1)', () => {
  const kc = new KubeConfig();
  let spire: TestSpire;
  let live: LiveController;
  const stop = new AbortController();

  beforeAll(async () => {
    kc.loadFromDefault();
    for (const file of ['spire.spiffe.io_clusterspiffeids.yaml', 'spire.spiffe.io_clusterstaticentries.yaml', 'spire.spiffe.io_clusterfederatedtrustdomains.yaml']) {
      const crd = parse(readFileSync(join(repoRoot, 'crds', file), 'utf8'));
      try {
        await kubeRequest(kc, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
      } catch (err) {
        if (!(err instanceof KubeApiError && err.statusCode === 409)) throw err;
      }
    }
    await kubeRequest(kc, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels: { e2e: suffix } } } });
    spire = await startTestSpire();
    const config = { ...defaultConfig(), trustDomain: 'example.org', clusterName: 'e2e', spireServerSocketPath: spire.socketPath, className, gcIntervalMs: 3_600_000 };
    live = await startLive({ config, pass: passOptions(config), kc, log: pino({ level: 'silent' }), signal: stop.signal });
    await kubeRequest(kc, 'POST', '/apis/spire.spiffe.io/v1alpha1/clusterspiffeids', {
      body: {
        apiVersion: 'spire.spiffe.io/v1alpha1',
        kind: 'ClusterSPIFFEID',
        metadata: { name: namespace },
        spec: { className, spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/pod/{{ .PodMeta.Name }}', namespaceSelector: { matchLabels: { e2e: suffix } } },
      },
    });
  }, 120_000);

  afterAll(async () => {
    stop.abort();
    await live?.done;
    await spire?.close();
    await kubeRequest(kc, 'DELETE', `/apis/spire.spiffe.io/v1alpha1/clusterspiffeids/${namespace}`).catch(() => undefined);
    await kubeRequest(kc, 'DELETE', `/api/v1/namespaces/${namespace}`).catch(() => undefined);
  }, 120_000);

  it('creates the entry of a scheduled pod and deletes it with the pod', async () => {
    await kubeRequest(kc, 'POST', `/api/v1/namespaces/${namespace}/pods`, {
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pause' }, spec: { containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10' }] } },
    });
    await eventually(() => spire.server.entries.all().some((e) => e.spiffeId.path === `/ns/${namespace}/pod/pause`), 'the entry exists', 120_000);
    type Csid = { status?: { stats?: { podsSelected?: number } } };
    const podsSelected = async () => (await kubeRequest<Csid>(kc, 'GET', `/apis/spire.spiffe.io/v1alpha1/clusterspiffeids/${namespace}`)).status?.stats?.podsSelected;
    await eventually(async () => (await podsSelected()) === 1, 'the status is written', 60_000);
    await kubeRequest(kc, 'DELETE', `/api/v1/namespaces/${namespace}/pods/pause`);
    await eventually(() => spire.server.entries.size === 0, 'the entry is gone', 120_000);
    expect(spire.server.entries.all()).toEqual([]);
  }, 300_000);
});
