/**
 * kube-controller-manager and kube-scheduler beside a control plane of
 * ./control-plane.ts (its `controllers` option), built by
 * scripts/real-k8s/build.sh from the same k8s.io/kubernetes as kube-apiserver.
 * With them a Deployment does what it does on a user's cluster: its
 * ReplicaSet makes pods, the scheduler binds them to a node, Services get
 * Endpoints and EndpointSlices, a PodDisruptionBudget gets its status,
 * owners' deletions cascade, and every namespace gets its `default`
 * ServiceAccount and its kube-root-ca.crt ConfigMap.
 *
 * Both run as the admin (the kubeconfig the plane writes), on a free loopback
 * port each, leader election off: there is one of each, and a Lease would only
 * delay their start.
 */
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { killProcess, startProcess, waitFor } from '../child-processes.js';
import { freePort } from '../ports.js';
import { cacheRoot } from './binaries.js';

/**
 * The controllers a user's view of Deployments, Services and PDBs needs, and
 * no more: no token Secrets (pods get projected tokens), no taint-based
 * eviction, no volume, job, certificate or IPAM controllers (nothing here
 * uses them).
 */
export const CONTROLLERS = [
  // The kubelet registers its node tainted node.kubernetes.io/not-ready (NoSchedule); this lifts the taint once the node is Ready.
  'node-lifecycle-controller',
  'deployment-controller',
  'replicaset-controller',
  'endpoints-controller',
  'endpointslice-controller',
  // PodDisruptionBudget status.
  'disruption-controller',
  // Owner references: a Deployment deleted takes its ReplicaSets and pods along.
  'garbage-collector-controller',
  // The `default` ServiceAccount of every namespace, which the ServiceAccount admission plugin requires of a pod that names none.
  'serviceaccount-controller',
  // kube-root-ca.crt in every namespace: the CA of a pod's projected kube-api-access volume.
  'root-ca-certificate-publisher-controller',
  // A deleted namespace's contents removed and the namespace with them (kubectl delete -f of a manifest folder).
  'namespace-controller',
];

export function controllerBinaries(kubernetesVersion: string): { controllerManager: string; scheduler: string } {
  const bins = {
    controllerManager: join(cacheRoot(), `kube-controller-manager-${kubernetesVersion}`, 'kube-controller-manager'),
    scheduler: join(cacheRoot(), `kube-scheduler-${kubernetesVersion}`, 'kube-scheduler'),
  };
  for (const bin of Object.values(bins)) {
    try {
      accessSync(bin, constants.X_OK);
    } catch {
      throw new Error(`${bin} is not built: run \`npm run real:build\` (needs Go)`);
    }
  }
  return bins;
}

export interface ControllersInput {
  kubernetesVersion: string;
  /** The plane's folder: logs and the two programs' self-signed serving certificates go here. */
  dir: string;
  /** An admin kubeconfig file. */
  kubeconfig: string;
  /** The cluster CA's PEM file, published as kube-root-ca.crt. */
  caFile: string;
  timeoutMs: number;
}

/** Starts both and waits for their /healthz; the caller stops the returned processes. */
export async function startControllers(input: ControllersInput): Promise<ChildProcess[]> {
  const bins = controllerBinaries(input.kubernetesVersion);
  const [kcmPort, schedulerPort] = [await freePort(), await freePort()];
  // Both serve /healthz over TLS with a certificate they make themselves; it is read on loopback only.
  const insecure = new Agent({ connect: { rejectUnauthorized: false } });
  const common = (port: number, name: string) => [
    `--kubeconfig=${input.kubeconfig}`,
    '--leader-elect=false',
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--cert-dir=${join(input.dir, `${name}-certs`)}`,
    '--profiling=false',
  ];
  const started: { name: string; child: ChildProcess; log: string; port: number }[] = [];
  try {
    for (const [name, bin, port, extra] of [
      [
        'kube-controller-manager',
        bins.controllerManager,
        kcmPort,
        [
          `--controllers=${CONTROLLERS.join(',')}`,
          `--root-ca-file=${input.caFile}`,
          // Every controller acts as the admin: one identity, no per-controller ServiceAccounts to wait for.
          '--use-service-account-credentials=false',
        ],
      ],
      ['kube-scheduler', bins.scheduler, schedulerPort, []],
    ] as const) {
      const log = join(input.dir, `${name}.log`);
      started.push({ name, child: startProcess(bin, [...common(port, name), ...extra], log), log, port });
    }
    for (const s of started) {
      await waitFor(s.name, s.child, s.log, async () => (await fetch(`https://127.0.0.1:${s.port}/healthz`, { dispatcher: insecure })).status === 200, input.timeoutMs);
    }
    return started.map((s) => s.child);
  } catch (err) {
    for (const s of started) await killProcess(s.child);
    throw err;
  } finally {
    await insecure.close();
  }
}
