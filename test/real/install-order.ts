/**
 * What test/real/install-order.test.ts needs to take deploy/'s install and
 * removal steps as deploy/README.md and docs/standalone.md write them, on a
 * real API server: the kustomizations rendered as `kubectl apply -k` renders
 * them (kustomize, built by scripts/real-k8s/build.sh), objects applied and
 * deleted in that order, and the question every step is asked after it:
 * can a ClusterSPIFFEID be created and deleted?
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { KubeApiError } from '../../src/kube/rest.js';
import { repoRoot } from '../support/cli.js';
import { kustomizeBinary } from '../support/real-k8s/binaries.js';
import type { ControlPlane } from '../support/real-k8s/index.js';
import { csid, type Obj, objects } from './world.js';

/** `kubectl kustomize DIR`: the objects `kubectl apply -k DIR` applies, in its order. */
export function kustomize(dir: string): Obj[] {
  const bin = kustomizeBinary();
  if (!bin) throw new Error('kustomize is not built: run `npm run real:build`, or `npm run test:real`, which builds first');
  const out = execFileSync(bin, ['build', join(repoRoot, dir)], { encoding: 'utf8', maxBuffer: 16 << 20 });
  return parseAllDocuments(out)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
}

/** Applies objects in order (created, or replaced where they exist), as kubectl apply. */
export async function applyAll(plane: ControlPlane, objs: Obj[]): Promise<void> {
  for (const o of objs) await plane.apply(o);
}

/** Deletes objects in order, those already gone skipped, as kubectl delete --ignore-not-found. */
export async function deleteAll(plane: ControlPlane, objs: Obj[]): Promise<void> {
  const o = objects(plane);
  for (const obj of objs) {
    await o.delete(obj).catch((err: unknown) => {
      if (!(err instanceof KubeApiError && err.statusCode === 404)) throw err;
    });
  }
}

/** The shell command in a README's code blocks that starts with `prefix`, its continuation lines joined. */
export function readmeCommand(file: string, prefix: string): string {
  const text = readFileSync(join(repoRoot, file), 'utf8').replace(/\\\n\s*/g, '');
  const line = text.split('\n').find((l) => l.trim().startsWith(prefix));
  if (!line) throw new Error(`${file}: no command starting with ${prefix}`);
  return line.trim();
}

/** The JSON of a command's `-p '...'` argument. */
export function patchArgument(command: string): object {
  const m = /-p '([^']+)'/.exec(command);
  if (!m) throw new Error(`no -p '...' in ${command}`);
  return JSON.parse(m[1]!) as object;
}

let probes = 0;

/**
 * Whether a ClusterSPIFFEID can be created and deleted now: undefined when
 * it can, else why the API server refused (its message). `valid: false`
 * makes one our webhook denies, which is admitted only while no webhook
 * configuration sends it to us.
 */
export async function probe(plane: ControlPlane, valid = true): Promise<string | undefined> {
  const o = objects(plane);
  const obj = csid(`install-probe-${++probes}`, { spiffeIDTemplate: valid ? 'spiffe://{{ .TrustDomain }}/probe/{{ .PodMeta.Name }}' : 'spiffe://{{ .TrustDomain }}/{{ .PodMeta.Name' });
  try {
    await o.create(obj);
  } catch (err) {
    if (err instanceof KubeApiError) return err.message;
    throw err;
  }
  await o.delete(obj);
  return undefined;
}

/** A refusal for want of a webhook that answers (no endpoint, nothing listening, a certificate it cannot verify), not a denial by the webhook. */
export const unreachable = (message: string | undefined) => !!message && /failed calling webhook/.test(message);
