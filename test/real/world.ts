/**
 * What the lane's tests share: a real control plane with deploy/'s RBAC (or
 * another set of RBAC manifests) applied, the controller's ServiceAccount
 * kubeconfig, the in-memory SPIRE server, and object helpers that do what the
 * missing kubelet and controllers would (pods deleted at once).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { KubeApiError } from '../../src/kube/rest.js';
import { repoRoot } from '../support/cli.js';
import { type ControlPlane, objectPath } from '../support/real-k8s/index.js';

export type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string; labels?: Record<string, string> }; [k: string]: unknown };

/** Every object of a YAML file (multi-document). */
export function yamlObjects(path: string): Obj[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
}

/** deploy/'s RBAC: the ServiceAccount, the ClusterRole and the leader-election Role, with their bindings. */
export const DEPLOY_RBAC = ['namespace.yaml', 'serviceaccount.yaml', 'clusterrole.yaml', 'clusterrolebinding.yaml', 'role.yaml', 'rolebinding.yaml'].map((f) => join(repoRoot, 'deploy', f));

/** Applies RBAC manifests and returns the kubeconfig of the SPIRE server's ServiceAccount (spire-server/spire-server), which they bind. */
export async function controllerKubeConfig(plane: ControlPlane, files: string[]): Promise<KubeConfig> {
  const objects = files.flatMap(yamlObjects);
  // Namespaces first; the ServiceAccount is made by serviceAccount() below if no file has it.
  objects.sort((a, b) => Number(b.kind === 'Namespace') - Number(a.kind === 'Namespace'));
  for (const o of objects) await plane.apply(o);
  return plane.serviceAccount('spire-server', 'spire-server');
}

/** deploy/configmap.yaml's config file, as a mutable object. */
export function deployedConfig(): Record<string, unknown> {
  const configMap = parseYaml(readFileSync(join(repoRoot, 'deploy/configmap.yaml'), 'utf8')) as { data: Record<string, string> };
  return parseYaml(configMap.data['config.yaml']!) as Record<string, unknown>;
}

/** `what` may be a function: it is asked at the timeout, so the message says how things stood then. */
export async function eventually(cond: () => boolean | Promise<boolean>, what: string | (() => Promise<string>), timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  let last: unknown;
  for (;;) {
    try {
      if (await cond()) return;
    } catch (err) {
      last = err;
    }
    if (Date.now() - started > timeoutMs) {
      const said = typeof what === 'string' ? what : await what().catch((err: unknown) => `(the message failed: ${String(err)})`);
      throw new Error(`timed out waiting until ${said}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Object helpers as the admin. */
export function objects(plane: ControlPlane) {
  const get = async <T = Obj>(o: Pick<Obj, 'apiVersion' | 'kind' | 'metadata'>): Promise<T | undefined> => {
    try {
      return await plane.request<T>('GET', objectPath(o).object);
    } catch (err) {
      if (err instanceof KubeApiError && err.statusCode === 404) return undefined;
      throw err;
    }
  };
  return {
    create: <T = Obj>(o: object) => plane.request<T>('POST', objectPath(o).collection, { body: o }),
    get,
    /** A merge patch of the main resource. */
    patch: <T = Obj>(o: Pick<Obj, 'apiVersion' | 'kind' | 'metadata'>, patch: object) =>
      plane.request<T>('PATCH', objectPath(o).object, { body: patch, contentType: 'application/merge-patch+json' }),
    patchStatus: <T = Obj>(o: Pick<Obj, 'apiVersion' | 'kind' | 'metadata'>, status: object) =>
      plane.request<T>('PATCH', `${objectPath(o).object}/status`, { body: { status }, contentType: 'application/merge-patch+json' }),
    /** Deletes at once: no kubelet confirms a pod's graceful deletion here. */
    delete: (o: Pick<Obj, 'apiVersion' | 'kind' | 'metadata'>) => plane.request('DELETE', objectPath(o).object, { query: { gracePeriodSeconds: '0' } }),
    /** Deletes as kubectl delete does, with the object's own grace period: a pod on a node is only marked terminating. */
    deleteGracefully: <T = Obj>(o: Pick<Obj, 'apiVersion' | 'kind' | 'metadata'>) => plane.request<T>('DELETE', objectPath(o).object),
  };
}

export const ns = (name: string, labels: Record<string, string> = {}): Obj => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
export const node = (name: string, labels: Record<string, string> = {}): Obj => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, spec: {} });
export const pod = (namespace: string, name: string, labels: Record<string, string> = { app: name }, nodeName = 'node-1'): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels },
  spec: { nodeName, serviceAccountName: `${name}-sa`, containers: [{ name: 'c', image: 'registry.example/app:1' }] },
});
export const csid = (name: string, spec: Record<string, unknown>): Obj => ({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name }, spec });
