/**
 * Where scripts/real-k8s/build.sh put kube-apiserver and etcd: the same
 * cache path, computed from the same go.mod files, so the two never disagree
 * on which versions are pinned.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../cli.js';

export interface RealK8sBinaries {
  kubeApiserver: string;
  etcd: string;
  kubernetesVersion: string;
  etcdVersion: string;
}

/** The version a go.mod requires `module` at (on a require line or inside a require block). */
export function pinnedVersion(goMod: string, module: string): string {
  const escaped = module.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = goMod.match(new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, 'm'));
  if (!m) throw new Error(`go.mod requires no ${module}`);
  return m[1]!;
}

export function cacheRoot(): string {
  return join(process.env.SPIRE_RECONCILER_CACHE || join(homedir(), '.cache', 'spire-reconciler'), 'real-k8s');
}

/** The k8s.io/kubernetes version kube-apiserver and the kubelet are built from. */
export function pinnedKubernetesVersion(): string {
  return pinnedVersion(readFileSync(join(repoRoot, 'scripts', 'real-k8s', 'kube-apiserver', 'go.mod'), 'utf8'), 'k8s.io/kubernetes');
}

/** The two binaries for the pinned versions; throws with what to run when they are not built. */
export function realK8sBinaries(): RealK8sBinaries {
  const dir = join(repoRoot, 'scripts', 'real-k8s');
  const kubernetesVersion = pinnedKubernetesVersion();
  const etcdVersion = pinnedVersion(readFileSync(join(dir, 'etcd', 'go.mod'), 'utf8'), 'go.etcd.io/etcd/server/v3');
  const kubeApiserver = join(cacheRoot(), `kube-apiserver-${kubernetesVersion}`, 'kube-apiserver');
  const etcd = join(cacheRoot(), `etcd-${etcdVersion}`, 'etcd');
  for (const bin of [kubeApiserver, etcd]) {
    try {
      accessSync(bin, constants.X_OK);
    } catch {
      throw new Error(`${bin} is not built: run \`npm run real:build\` (needs Go), or \`npm run test:real\`, which builds first`);
    }
  }
  return { kubeApiserver, etcd, kubernetesVersion, etcdVersion };
}

/** kustomize, as scripts/real-k8s/build.sh builds it (the e2e lane renders deploy/standalone with it); undefined when not built. */
export function kustomizeBinary(): string | undefined {
  const version = pinnedVersion(readFileSync(join(repoRoot, 'scripts', 'real-k8s', 'kustomize', 'go.mod'), 'utf8'), 'sigs.k8s.io/kustomize/kustomize/v5');
  const bin = join(cacheRoot(), `kustomize-${version}`, 'kustomize');
  try {
    accessSync(bin, constants.X_OK);
    return bin;
  } catch {
    return undefined;
  }
}

/** etcdutl, as scripts/real-k8s/build.sh builds it (at etcd's version): the offline snapshot restore. Throws with what to run when it is not built. */
export function etcdutlBinary(): string {
  const version = pinnedVersion(readFileSync(join(repoRoot, 'scripts', 'real-k8s', 'etcdutl', 'go.mod'), 'utf8'), 'go.etcd.io/etcd/etcdutl/v3');
  const bin = join(cacheRoot(), `etcdutl-${version}`, 'etcdutl');
  try {
    accessSync(bin, constants.X_OK);
    return bin;
  } catch {
    throw new Error(`${bin} is not built: run \`npm run real:build\` (needs Go), or \`npm run test:real\`, which builds first`);
  }
}
