/**
 * A kubeconfig file read without client-node (kube/connection.ts), against a
 * real API server: the admin's client certificate and the controller's
 * service account token, each checked against the cluster's CA, list and
 * watch as the controller does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConnection } from '../../src/kube/connection.js';
import { ResilientInformer } from '../../src/kube/informer.js';
import { loadKubeConfig } from '../../src/kube/kubeconfig.js';
import { KubeApiError, kubeRequest, listAll } from '../../src/kube/rest.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { controllerKubeConfig, DEPLOY_RBAC, eventually, ns, objects } from './world.js';

describe('a kubeconfig file read without client-node, on a real API server', () => {
  let plane: ControlPlane;
  let dir: string;
  const informers: ResilientInformer<KubernetesObject>[] = [];

  beforeAll(async () => {
    plane = await startControlPlane();
    dir = mkdtempSync(join(tmpdir(), 'real-kubeconfig-'));
  });
  afterAll(async () => {
    for (const i of informers) i.stop();
    await plane?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['the admin, by client certificate', 'admin'],
    ['the controller, by service account token', 'controller'],
  ])('%s: lists, then watches a change', async (_who, who) => {
    const file = join(dir, who);
    plane.writeKubeconfig(file, who === 'admin' ? plane.admin : await controllerKubeConfig(plane, DEPLOY_RBAC));
    const kc = await loadKubeConfig({ file });
    expect(kc).toBeInstanceOf(KubeConnection);
    const informer = new ResilientInformer<KubernetesObject>(kc, {
      name: 'namespaces',
      path: '/api/v1/namespaces',
      list: (onPage) => listAll(kc, '/api/v1/namespaces', { onPage }),
      onChange: () => undefined,
    });
    informers.push(informer);
    await informer.start();
    expect(informer.hasSynced).toBe(true);
    await objects(plane).create(ns(`made-for-${who}`));
    await eventually(() => informer.list().some((o) => o.metadata?.name === `made-for-${who}`), 'the namespace created after the list');
    expect(informer.staleness).toBeUndefined();
  });

  it('is refused as nobody without its credentials: the server, not the client, decides', async () => {
    const file = join(dir, 'anonymous');
    plane.writeKubeconfig(file, plane.admin);
    const kc = (await loadKubeConfig({ file })) as KubeConnection;
    const anonymous = new KubeConnection({ ...kc.spec, cert: undefined, key: undefined });
    const err = await kubeRequest(anonymous, 'GET', '/api/v1/namespaces').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect([401, 403]).toContain((err as KubeApiError).statusCode);
  });
});
