/**
 * What deploy/ ships, read as tests of `spire-reconciler run` need it: the
 * config file and the ValidatingWebhookConfiguration, and the objects those
 * tests put in the cluster.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { repoRoot } from './cli.js';

/** deploy/configmap.yaml's config file, as a mutable object. */
export function deployedConfig(file = 'deploy/configmap.yaml'): Record<string, unknown> {
  const configMap = parseYaml(readFileSync(join(repoRoot, file), 'utf8')) as { data: Record<string, string> };
  return parseYaml(configMap.data['config.yaml']!) as Record<string, unknown>;
}

/** The config deploy/standalone gives the controller. */
export function standaloneConfig(): Record<string, unknown> {
  return deployedConfig('deploy/standalone/configmap.yaml');
}

/** deploy/webhook.yaml's ValidatingWebhookConfiguration. */
export function deployedWebhookConfiguration(): { kind: string; metadata: { name: string } } {
  const docs = parseAllDocuments(readFileSync(join(repoRoot, 'deploy/webhook.yaml'), 'utf8'));
  if (!Array.isArray(docs)) throw new Error('deploy/webhook.yaml is empty');
  const vwc = docs.map((d) => d.toJS() as { kind: string; metadata: { name: string } } | null).find((o) => o?.kind === 'ValidatingWebhookConfiguration');
  if (!vwc) throw new Error('deploy/webhook.yaml has no ValidatingWebhookConfiguration');
  return vwc;
}

export const ns = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

export const pod = (namespace: string, name: string, labels: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels },
  spec: { nodeName: 'node-1', serviceAccountName: name, containers: [{ name: 'main', image: 'app:1' }] },
  status: { phase: 'Running' },
});

/** deploy/sidecar's spire-reconciler container: the environment it sets and its memory limit. */
export function deployedContainer(): { env: Record<string, string>; memoryLimitBytes: number } {
  const patch = parseYaml(readFileSync(join(repoRoot, 'deploy/sidecar/spire-server-sidecar-patch.yaml'), 'utf8')) as {
    spec: { template: { spec: { containers: { name: string; env?: { name: string; value: string }[]; resources: { limits: { memory: string } } }[] } } };
  };
  const container = patch.spec.template.spec.containers.find((c) => c.name === 'spire-reconciler');
  if (!container) throw new Error('deploy/sidecar: no spire-reconciler container');
  const limit = /^(\d+)Mi$/.exec(container.resources.limits.memory);
  if (!limit) throw new Error(`deploy/sidecar: memory limit ${container.resources.limits.memory} is not in Mi`);
  return { env: Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value])), memoryLimitBytes: Number(limit[1]) * 1024 * 1024 };
}

/** What `run` tests put in a fake cluster first: deploy/'s webhook configuration, namespace shop and node node-1. */
export function seedDeployedCluster(kube: { create(obj: object): unknown }): void {
  kube.create(deployedWebhookConfiguration());
  kube.create(ns('shop'));
  kube.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, spec: {} });
}

/** deploy/'s config file pointed at test servers: SPIRE's socket, JSON logs, metrics and health on free ports, the webhook on localhost at `webhookPort`. */
export function deployedTestConfig(socketPath: string, webhookPort: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.assign(deployedConfig(), {
    spireServerSocketPath: socketPath,
    clusterDomain: 'cluster.local',
    logEncoding: 'json',
    metrics: { bindAddress: '127.0.0.1:0' },
    health: { healthProbeBindAddress: '127.0.0.1:0' },
    webhook: { host: '127.0.0.1', port: webhookPort },
    ...over,
  });
}
