import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseConfig } from '../../src/api/config.js';
import { parseBindAddress } from '../../src/net/http.js';

const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url));

/* eslint-disable @typescript-eslint/no-explicit-any -- Kubernetes objects read from YAML, checked field by field below */
type Obj = Record<string, any>;

function readYaml(path: string): Obj[] {
  const docs = parseAllDocuments(readFileSync(path, 'utf8'));
  if (!Array.isArray(docs)) return [];
  for (const d of docs) {
    if (d.errors.length > 0) throw new Error(`${path}: ${d.errors[0]!.message}`);
  }
  return docs.map((d) => d.toJS() as Obj).filter((o) => o !== null);
}

const yamlFiles = readdirSync(DEPLOY).filter((f) => /\.ya?ml$/.test(f));
const objects = new Map(yamlFiles.map((f) => [f, readYaml(join(DEPLOY, f))]));

function only(file: string): Obj {
  const docs = objects.get(file);
  if (docs?.length !== 1) throw new Error(`${file}: expected one object, found ${docs?.length ?? 'no file'}`);
  return docs[0]!;
}

const kustomization = only('kustomization.yaml');
const clusterRole = only('clusterrole.yaml');
const role = only('role.yaml');
const serviceAccount = only('serviceaccount.yaml');
const configMap = only('configmap.yaml');
const SIDECAR = join(DEPLOY, 'sidecar');
const patch = readYaml(join(SIDECAR, 'spire-server-sidecar-patch.yaml'))[0]!;
const sidecarKustomization = readYaml(join(SIDECAR, 'kustomization.yaml'))[0]!;
const loaded = parseConfig(configMap.data['config.yaml'], 'deploy/configmap.yaml');
const config = loaded.config;
const container: Obj = patch.spec.template.spec.containers.find((c: Obj) => c.name === 'spire-reconciler');

/** RBAC rules flattened to "group/resource[name]" -> sorted verbs, so that how rules are split does not matter. */
function grants(rules: Obj[]): Record<string, string[]> {
  const out: Record<string, Set<string>> = {};
  for (const r of rules) {
    for (const group of r.apiGroups) {
      for (const resource of r.resources) {
        for (const name of r.resourceNames ?? ['']) {
          const key = `${group === '' ? 'core' : group}/${resource}${name ? `[${name}]` : ''}`;
          for (const verb of r.verbs) (out[key] ??= new Set()).add(verb);
        }
      }
    }
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v].sort()]));
}

const READ = ['list', 'watch'];
const STATUS = ['patch'];

/** The table in deploy/README.md. Changing a permission means changing both. */
const CLUSTER_GRANTS: Record<string, string[]> = {
  'core/pods': READ,
  'core/namespaces': READ,
  'core/nodes': READ,
  'core/endpoints': READ,
  'discovery.k8s.io/endpointslices': READ,
  'spire.spiffe.io/clusterspiffeids': READ,
  'spire.spiffe.io/clusterstaticentries': READ,
  'spire.spiffe.io/clusterfederatedtrustdomains': READ,
  'spire.spiffe.io/clusterspiffeids/status': STATUS,
  'spire.spiffe.io/clusterstaticentries/status': STATUS,
  'spire.spiffe.io/clusterfederatedtrustdomains/status': STATUS,
  'core/events': ['create'],
  // The webhook's own configuration only, by name.
  'admissionregistration.k8s.io/validatingwebhookconfigurations[spire-controller-manager-webhook]': ['get', 'patch'],
  // The SPIRE helm chart's name for it (<namespace>-<fullname>-webhook), for a config taken from the chart.
  'admissionregistration.k8s.io/validatingwebhookconfigurations[spire-server-spire-controller-manager-webhook]': ['get', 'patch'],
};

describe('deploy/ is a kustomization kubectl can apply', () => {
  it('every YAML file parses, and every object has apiVersion, kind and a name', () => {
    expect(yamlFiles.length).toBeGreaterThanOrEqual(9);
    for (const [file, docs] of objects) {
      expect(docs.length, file).toBeGreaterThan(0);
      for (const o of docs) {
        expect(typeof o.apiVersion, file).toBe('string');
        expect(typeof o.kind, file).toBe('string');
        if (o.kind !== 'Kustomization') expect(typeof o.metadata?.name, file).toBe('string');
      }
    }
  });

  it('lists files that exist, and every manifest here except the patch and the webhook (applied last, deleted first)', () => {
    const resources: string[] = kustomization.resources;
    for (const r of resources) expect(existsSync(join(DEPLOY, r)), r).toBe(true);
    const listed = resources.filter((r) => !r.startsWith('..'));
    const expected = yamlFiles.filter((f) => f !== 'kustomization.yaml' && f !== 'webhook.yaml').sort();
    expect([...listed].sort()).toEqual(expected);
    // The patch targets a StatefulSet this kustomization does not hold: listing it would fail the build.
    expect(JSON.stringify(kustomization)).not.toContain('sidecar');
  });

  it('takes the CRDs from ../crds through a kustomization there (kustomize refuses files outside deploy/)', () => {
    const dirs = (kustomization.resources as string[]).filter((r) => statSync(join(DEPLOY, r)).isDirectory());
    expect(dirs).toEqual(['../crds']);
    const crdDir = join(DEPLOY, '../crds');
    const inner = join(crdDir, 'kustomization.yaml');
    expect(existsSync(inner), 'crds/kustomization.yaml must exist for `kubectl apply -k deploy/`').toBe(true);
    const innerResources: string[] = readYaml(inner)[0]?.resources ?? [];
    const crdFiles = readdirSync(crdDir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect([...innerResources].sort()).toEqual(crdFiles.sort());
    for (const r of innerResources) expect(relative(crdDir, join(crdDir, r)).startsWith('..'), r).toBe(false);
  });
});

describe('the install steps say what works', () => {
  it('builds and pushes the image first, names it once (the sidecar kustomization), and installs the CRDs with -k', () => {
    const readme = readFileSync(join(DEPLOY, 'README.md'), 'utf8');
    const install = readme.slice(readme.indexOf('## Install'));
    const steps = [...install.matchAll(/^(\d)\. (.*)$/gm)].map((m) => [m[1], m[2]]);
    expect(steps[0]).toEqual(['1', '**Build and push the image first.** No public image is published: build it from this']);
    expect(install).toContain('--patch "$(kubectl kustomize deploy/sidecar)"');
    const crds = readFileSync(join(DEPLOY, '../crds/README.md'), 'utf8');
    expect(crds).toContain('`kubectl apply -k crds/`');
    expect(crds).not.toMatch(/kubectl apply -f crds/);
  });
});

/** The commands of a Markdown section's code blocks, in order, continuation lines joined. */
function commands(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(heading);
  if (start === -1) throw new Error(`no section ${heading}`);
  const next = markdown.indexOf('\n## ', start + heading.length);
  const section = markdown.slice(start, next === -1 ? undefined : next);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
    m[1]!
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith('kubectl ')),
  );
}

/** The index of the first command matching `re`, failing when none does. */
function at(cmds: string[], re: RegExp): number {
  const i = cmds.findIndex((c) => re.test(c));
  if (i === -1) throw new Error(`no command matching ${re} in:\n${cmds.join('\n')}`);
  return i;
}

describe('install and removal never leave the fail-closed webhook without the container serving it', () => {
  const readme = readFileSync(join(DEPLOY, 'README.md'), 'utf8');
  const standaloneDoc = readFileSync(join(DEPLOY, '../docs/standalone.md'), 'utf8');

  it('the sidecar: the webhook is applied after the container is added, and deleted before it is removed', () => {
    const install = commands(readme, '## Install');
    expect(at(install, /^kubectl apply -k deploy\/$/)).toBeLessThan(at(install, /^kubectl patch statefulset spire-server .*--patch "\$\(kubectl kustomize deploy\/sidecar\)"/));
    expect(at(install, /--patch "\$\(kubectl kustomize deploy\/sidecar\)"/)).toBeLessThan(at(install, /^kubectl apply -f deploy\/webhook\.yaml$/));
    expect(at(install, /^kubectl apply -f deploy\/webhook\.yaml$/)).toBeLessThan(at(install, /^kubectl wait .*caBundle.* validatingwebhookconfiguration\/spire-controller-manager-webhook$/));
    const remove = commands(readme, '## Remove');
    expect(at(remove, /^kubectl delete -f deploy\/webhook\.yaml$/)).toBeLessThan(at(remove, /^kubectl patch statefulset spire-server .*"\$patch":"delete"/));
    expect(at(remove, /"\$patch":"delete"/)).toBeLessThan(at(remove, /^kubectl delete clusterrolebinding/));
    expect(remove.join('\n')).not.toMatch(/delete -k deploy\/$/m);
  });

  it('the standalone Deployment: the webhook is applied once it is rolled out, and deleted before it', () => {
    const install = commands(standaloneDoc, '## Install');
    expect(at(install, /^kubectl apply -f deploy\/standalone\/webhook\.yaml$/)).toBeLessThan(at(install, /^kubectl wait .*caBundle.* validatingwebhookconfiguration\/spire-reconciler-standalone-webhook$/));
    const steps = standaloneDoc.slice(standaloneDoc.indexOf('## Install'));
    expect(steps.indexOf('`kubectl apply -k deploy/standalone`')).toBeLessThan(steps.indexOf('rollout status deployment/spire-reconciler'));
    expect(steps.indexOf('rollout status deployment/spire-reconciler')).toBeLessThan(steps.indexOf('kubectl apply -f deploy/standalone/webhook.yaml'));
    expect(at(install, /^kubectl delete -f deploy\/standalone\/webhook\.yaml$/)).toBeLessThan(at(install, /^kubectl delete -k deploy\/standalone$/));
  });

  it('the removal patch deletes exactly what the sidecar patch adds: its container and its config volume', () => {
    const remove = commands(readme, '## Remove').find((c) => c.includes('"$patch":"delete"'))!;
    const body = JSON.parse(/-p '([^']+)'/.exec(remove)![1]!) as Obj;
    const added = patch.spec.template.spec;
    expect(body.spec.template.spec.containers).toEqual(added.containers.map((c: Obj) => ({ name: c.name, $patch: 'delete' })));
    expect(body.spec.template.spec.volumes).toEqual(added.volumes.map((v: Obj) => ({ name: v.name, $patch: 'delete' })));
  });
});

describe('the admission webhook is wired end to end', () => {
  it('the VWC sends all three kinds to the Service on the sidecar port, named as the config names it', () => {
    const docs = readYaml(join(DEPLOY, 'webhook.yaml')) as Obj[];
    const vwc = docs.find((d) => d.kind === 'ValidatingWebhookConfiguration')!;
    const svc = docs.find((d) => d.kind === 'Service')!;
    expect(vwc.metadata.name).toBe(config.validatingWebhookConfigurationName);
    const paths = (vwc.webhooks as Obj[]).map((w) => w.clientConfig.service.path).sort();
    expect(paths).toEqual([
      '/validate-spire-spiffe-io-v1alpha1-clusterfederatedtrustdomain',
      '/validate-spire-spiffe-io-v1alpha1-clusterspiffeid',
      '/validate-spire-spiffe-io-v1alpha1-clusterstaticentry',
    ]);
    for (const w of vwc.webhooks as Obj[]) {
      expect(w.clientConfig.service).toMatchObject({ name: svc.metadata.name, namespace: svc.metadata.namespace });
      expect(w.clientConfig.caBundle).toBeUndefined();
    }
    expect(svc.spec.ports[0].targetPort).toBe('sr-webhook');
    const container = (patch.spec.template.spec.containers as Obj[]).find((c) => c.name === 'spire-reconciler')!;
    expect((container.ports as Obj[]).find((p) => p.name === 'sr-webhook')?.containerPort).toBe(config.webhook.port);
  });
});

describe('the optional NetworkPolicy admits only the API server to the webhook port, and leaves the rest of the pod as it was', () => {
  const policy = readYaml(join(DEPLOY, 'optional', 'webhook-networkpolicy.yaml'));
  const svc = (readYaml(join(DEPLOY, 'webhook.yaml')) as Obj[]).find((d) => d.kind === 'Service')!;
  const [np] = policy;
  const rules = (np?.spec.ingress ?? []) as Obj[];
  const ports = (r: Obj) => ((r.ports ?? []) as Obj[]).map((p) => p.port);

  it('is one NetworkPolicy on the pods the webhook Service selects, for ingress only', () => {
    expect(policy).toHaveLength(1);
    expect(np).toMatchObject({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { namespace: svc.metadata.namespace } });
    expect(np!.spec.podSelector).toEqual({ matchLabels: svc.spec.selector });
    expect(np!.spec.policyTypes).toEqual(['Ingress']);
  });

  it('lets the webhook port be reached only from an address range, never from everywhere', () => {
    const webhookRules = rules.filter((r) => ports(r).includes('sr-webhook'));
    expect(webhookRules).toHaveLength(1);
    expect(webhookRules[0]!.from.map((f: Obj) => Object.keys(f))).toEqual([['ipBlock']]);
  });

  it("keeps every other port of the sidecar and the SPIRE server's API open, as without it", () => {
    const open = rules.filter((r) => r.from === undefined).flatMap(ports);
    for (const p of (container.ports as Obj[]).map((p) => p.name).filter((n: string) => n !== 'sr-webhook')) expect(open).toContain(p);
    expect(open).toContain(8081);
    expect(open).not.toContain('sr-webhook');
  });

  it('is not applied by the kustomization: it is optional, and needs editing first', () => {
    expect(JSON.stringify(kustomization)).not.toContain('networkpolicy');
  });
});

describe('RBAC grants exactly what the README documents, and no more', () => {
  it('the ClusterRole grants exactly the documented verbs per resource', () => {
    expect(clusterRole.kind).toBe('ClusterRole');
    expect(grants(clusterRole.rules)).toEqual(Object.fromEntries(Object.entries(CLUSTER_GRANTS).map(([k, v]) => [k, [...v].sort()])));
  });

  it('the Role covers only the leader-election Lease named in the config, in its namespace', () => {
    expect(role.kind).toBe('Role');
    expect(role.metadata.namespace).toBe(config.leaderElection.resourceNamespace);
    expect(grants(role.rules)).toEqual({
      'coordination.k8s.io/leases': ['create'],
      [`coordination.k8s.io/leases[${config.leaderElection.resourceName}]`]: ['get', 'update'],
    });
  });

  it('has no wildcard verbs, resources or groups, and no non-resource URLs', () => {
    for (const r of [...clusterRole.rules, ...role.rules] as Obj[]) {
      for (const field of ['verbs', 'resources', 'apiGroups', 'resourceNames']) {
        for (const v of r[field] ?? []) expect(v, `${field} of ${JSON.stringify(r)}`).not.toContain('*');
      }
      expect(r.nonResourceURLs).toBeUndefined();
    }
  });

  it('binds both roles to the service account in serviceaccount.yaml', () => {
    const sa = { kind: 'ServiceAccount', name: serviceAccount.metadata.name, namespace: serviceAccount.metadata.namespace };
    const crb = only('clusterrolebinding.yaml');
    const rb = only('rolebinding.yaml');
    expect(crb.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole.metadata.name });
    expect(rb.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.metadata.name });
    expect(rb.metadata.namespace).toBe(role.metadata.namespace);
    expect(crb.subjects).toEqual([sa]);
    expect(rb.subjects).toEqual([sa]);
  });
});

describe('the shipped config file loads as the controller will load it', () => {
  it('parses without errors or warnings', () => {
    expect(loaded.warnings).toEqual([]);
    expect(config.trustDomain).toBe('example.org');
    expect(config.clusterName).toBe('demo');
    expect(config.spireServerSocketPath).toBe('/tmp/spire-server/private/api.sock');
    expect(config.leaderElection.leaderElect).toBe(true);
    expect(config.leaderElection.resourceNamespace).toBe('spire-server');
  });
});

describe('the sidecar runs locked down, beside the SPIRE server it serves', () => {
  it('patches the SPIRE server StatefulSet and adds one container', () => {
    expect(patch.kind).toBe('StatefulSet');
    expect(patch.metadata).toEqual({ name: 'spire-server', namespace: 'spire-server' });
    expect(container).toBeDefined();
    // The image is named once, by the sidecar kustomization's `images:`, which rewrites this name.
    expect(container.image).toBe('spire-reconciler');
    expect(sidecarKustomization.resources).toEqual(['spire-server-sidecar-patch.yaml']);
    expect(sidecarKustomization.images).toEqual([{ name: 'spire-reconciler', newName: expect.any(String), newTag: expect.any(String) }]);
    expect(container.args).toEqual(['run', '--config', '/config/config.yaml']);
  });

  it('runs as non-root with a read-only root filesystem, no privilege escalation and no capabilities', () => {
    const sc = container.securityContext;
    expect(sc.runAsNonRoot).toBe(true);
    expect(sc.runAsUser).toBeGreaterThan(0);
    expect(sc.readOnlyRootFilesystem).toBe(true);
    expect(sc.allowPrivilegeEscalation).toBe(false);
    expect(sc.privileged ?? false).toBe(false);
    expect(sc.capabilities).toEqual({ drop: ['ALL'] });
  });

  it('sets resource requests and limits', () => {
    for (const kind of ['requests', 'limits']) {
      expect(container.resources[kind].cpu, kind).toBeDefined();
      expect(container.resources[kind].memory, kind).toBeDefined();
    }
  });

  it('mounts the SPIRE socket directory the config points at, and the ConfigMap where --config reads it', () => {
    const mounts = new Map<string, Obj>(container.volumeMounts.map((m: Obj) => [m.name, m]));
    expect(mounts.get('spire-server-socket')).toEqual({ name: 'spire-server-socket', mountPath: dirname(config.spireServerSocketPath), readOnly: true });
    const configVolume = (patch.spec.template.spec.volumes as Obj[]).find((v) => v.configMap?.name === configMap.metadata.name);
    expect(configVolume).toBeDefined();
    const configMount = mounts.get(configVolume!.name);
    expect(join(configMount!.mountPath, 'config.yaml')).toBe(container.args[2]);
    // The socket volume is the SPIRE server's own: the patch must not redefine it.
    expect((patch.spec.template.spec.volumes as Obj[]).map((v) => v.name)).not.toContain('spire-server-socket');
  });

  it('exposes the metrics, health and webhook ports the config binds, and probes the configured endpoints', () => {
    const ports = new Map<string, number>(container.ports.map((p: Obj) => [p.name, p.containerPort]));
    const metricsPort = parseBindAddress(config.metricsBindAddress, 'metrics')!.port;
    const healthPort = parseBindAddress(config.healthProbeBindAddress, 'health')!.port;
    expect([...ports.values()].sort()).toEqual([metricsPort, healthPort, config.webhook.port].sort());
    for (const [probe, path] of [
      ['livenessProbe', config.livenessEndpointName],
      ['readinessProbe', config.readinessEndpointName],
    ] as const) {
      const get = container[probe].httpGet;
      expect(get.path, probe).toBe(path);
      expect(ports.get(get.port), probe).toBe(healthPort);
    }
    for (const name of ports.keys()) expect(name.length, `port name ${name}`).toBeLessThanOrEqual(15);
  });
});

describe('deploy/standalone: a Deployment of its own, with deploy/ permissions and webhooks under names of its own', () => {
  const STANDALONE = join(DEPLOY, 'standalone');
  const files = readdirSync(STANDALONE).filter((f) => /\.ya?ml$/.test(f));
  const all = files.flatMap((f) => readYaml(join(STANDALONE, f)).map((o) => ({ file: f, o })));
  const of = (kind: string) => all.filter((x) => x.o.kind === kind).map((x) => x.o);
  const one = (kind: string) => {
    const found = of(kind);
    if (found.length !== 1) throw new Error(`deploy/standalone: ${found.length} ${kind}s`);
    return found[0]!;
  };
  const sKustomization = one('Kustomization');
  const deployment = one('Deployment');
  const sConfigMap = one('ConfigMap');
  const sLoaded = parseConfig(sConfigMap.data['config.yaml'], 'deploy/standalone/configmap.yaml');
  const sConfig = sLoaded.config;
  const pod = deployment.spec.template.spec;
  const sContainer: Obj = pod.containers[0];

  it('lists every file here but the webhook (applied once the Deployment is ready), names the image once, and carries no Namespace or CRD (SPIRE\'s, which delete -k must never take)', () => {
    expect([...sKustomization.resources].sort()).toEqual(files.filter((f) => f !== 'kustomization.yaml' && f !== 'webhook.yaml').sort());
    expect(sKustomization.images).toEqual([{ name: 'spire-reconciler', newName: expect.any(String), newTag: expect.any(String) }]);
    expect(sContainer.image).toBe('spire-reconciler');
    const kinds = all.map((x) => x.o.kind);
    expect(kinds).not.toContain('Namespace');
    expect(kinds).not.toContain('CustomResourceDefinition');
    // Beside a sidecar install, nothing here replaces one of deploy/'s objects.
    const names = (o: Obj) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    const sidecarNames = new Set([...objects.values()].flat().filter((o) => o.kind !== 'Kustomization').map(names));
    for (const { o } of all.filter((x) => x.o.kind !== 'Kustomization')) expect(sidecarNames.has(names(o)), names(o)).toBe(false);
  });

  it("grants deploy/'s permissions, its own webhook configuration by name, to its own account", () => {
    const cr = one('ClusterRole');
    const vwcGrant = (name: string) => `admissionregistration.k8s.io/validatingwebhookconfigurations[${name}]`;
    const expected = Object.fromEntries(Object.entries(CLUSTER_GRANTS).filter(([k]) => !k.startsWith('admissionregistration')));
    expected[vwcGrant(sConfig.validatingWebhookConfigurationName)] = ['get', 'patch'];
    expect(grants(cr.rules)).toEqual(Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, [...v].sort()])));
    const r = one('Role');
    expect(r.metadata.namespace).toBe(sConfig.leaderElection.resourceNamespace);
    expect(grants(r.rules)).toEqual({ 'coordination.k8s.io/leases': ['create'], [`coordination.k8s.io/leases[${sConfig.leaderElection.resourceName}]`]: ['get', 'update'] });
    const sa = one('ServiceAccount');
    const subject = [{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: sa.metadata.namespace }];
    expect(one('ClusterRoleBinding')).toMatchObject({ roleRef: { kind: 'ClusterRole', name: cr.metadata.name }, subjects: subject });
    expect(one('RoleBinding')).toMatchObject({ roleRef: { kind: 'Role', name: r.metadata.name }, subjects: subject });
    expect(pod.serviceAccountName).toBe(sa.metadata.name);
  });

  it("has deploy/'s webhooks, sent to a Service of the Deployment's pods on the port the config binds", () => {
    const vwc = one('ValidatingWebhookConfiguration');
    const svc = one('Service');
    const sidecarVwc = (readYaml(join(DEPLOY, 'webhook.yaml')) as Obj[]).find((d) => d.kind === 'ValidatingWebhookConfiguration')!;
    const withoutService = (w: Obj) => ({ ...w, clientConfig: { ...w.clientConfig, service: { ...w.clientConfig.service, name: '' } } });
    expect(vwc.webhooks.map(withoutService)).toEqual(sidecarVwc.webhooks.map(withoutService));
    expect(vwc.metadata.name).toBe(sConfig.validatingWebhookConfigurationName);
    for (const w of vwc.webhooks as Obj[]) expect(w.clientConfig.service).toMatchObject({ name: svc.metadata.name, namespace: svc.metadata.namespace });
    expect(svc.spec.selector).toEqual(deployment.spec.template.metadata.labels);
    expect((sContainer.ports as Obj[]).find((p) => p.name === svc.spec.ports[0].targetPort)?.containerPort).toBe(sConfig.webhook.port);
  });

  it('reaches the SPIRE server over TCP with the SVID from the mounted agent socket, its config loading clean', () => {
    expect(sLoaded.warnings).toEqual([]);
    expect(sConfig.spireServerAddress).toMatch(/:\d+$/);
    const mount = (sContainer.volumeMounts as Obj[]).find((m) => sConfig.workloadAPISocketPath.startsWith(`${m.mountPath}/`));
    expect(mount, 'a mount holds workloadAPISocketPath').toBeDefined();
    expect(mount!.readOnly).toBe(true);
    expect((pod.volumes as Obj[]).find((v) => v.name === mount!.name)).toMatchObject({ hostPath: { path: mount!.mountPath, type: 'Directory' } });
    const configVolume = (pod.volumes as Obj[]).find((v) => v.configMap?.name === sConfigMap.metadata.name)!;
    expect(join((sContainer.volumeMounts as Obj[]).find((m) => m.name === configVolume.name)!.mountPath, 'config.yaml')).toBe(sContainer.args[2]);
  });

  it('runs two replicas that never leave the webhook without an endpoint, readiness its own, locked down as the sidecar', () => {
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    expect(one('PodDisruptionBudget').spec).toEqual({ minAvailable: 1, selector: deployment.spec.selector });
    expect(sContainer.readinessProbe.httpGet.path).toBe(sConfig.readinessEndpointName);
    expect(sContainer.securityContext).toEqual({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true });
    for (const kind of ['requests', 'limits']) expect(sContainer.resources[kind]).toMatchObject({ cpu: expect.anything(), memory: expect.anything() });
  });
});
