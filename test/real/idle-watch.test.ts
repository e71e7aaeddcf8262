/**
 * An informer on a resource where nothing changes, against a real API server:
 * kube-apiserver sends no bookmark on such a stream, so every stream ends
 * having delivered nothing. That must not make the informer relist (a relist
 * of 100,000 pods every few streams would be the controller's largest cost),
 * and it must still see the next change.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RelistReason, ResilientInformer } from '../../src/kube/informer.js';
import { listAll } from '../../src/kube/rest.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';
import { controllerKubeConfig, DEPLOY_RBAC, eventually, ns, objects } from './world.js';

describe('an idle informer on a real API server', () => {
  let plane: ControlPlane;
  let informer: ResilientInformer<KubernetesObject>;
  const relists: RelistReason[] = [];

  beforeAll(async () => {
    plane = await startControlPlane();
    const kc = await controllerKubeConfig(plane, DEPLOY_RBAC);
    await objects(plane).create(ns('idle-1'));
    informer = new ResilientInformer<KubernetesObject>(kc, {
      name: 'namespaces',
      path: '/api/v1/namespaces',
      list: (onPage) => listAll(kc, '/api/v1/namespaces', { onPage }),
      onChange: () => undefined,
      onRelist: (reason) => relists.push(reason),
      // Streams of one second: several end empty within the test.
      watchTimeoutSeconds: 1,
    });
    await informer.start();
  });
  afterAll(async () => {
    informer?.stop();
    await plane?.stop();
  });

  it('does not relist after streams that end empty, and sees the next change', async () => {
    // Six streams of one second, none carrying anything: nothing changes in namespaces.
    await new Promise((r) => setTimeout(r, 6_500));
    expect(relists).toEqual([]);
    expect(informer.staleness).toBeUndefined();
    await objects(plane).create(ns('idle-2'));
    await eventually(() => informer.list().some((o) => o.metadata?.name === 'idle-2'), 'the namespace created after the idle streams');
    expect(relists).toEqual([]);
  });
});
