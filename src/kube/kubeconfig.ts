import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

/** Where client-node looks for a pod's service account token. */
const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export class NoKubeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoKubeConfigError';
  }
}

/**
 * KUBECONFIG, ~/.kube/config or the in-cluster service account, as client-go
 * chooses. client-node, finding none of them, falls back to
 * http://localhost:8080, where every request then fails with a message about
 * skipTLSVerify that names none of the three: so their absence is an error
 * here, naming what was looked for.
 */
export function loadKubeConfig(opts: { file?: string; env?: NodeJS.ProcessEnv; home?: string } = {}): KubeConfig {
  const kc = new KubeConfig();
  if (opts.file) {
    try {
      kc.loadFromFile(opts.file);
    } catch (err) {
      throw new NoKubeConfigError(`cannot read --kubeconfig ${opts.file}: ${(err as Error).message}`);
    }
    if (!kc.getCurrentCluster()) throw new NoKubeConfigError(`no current cluster in --kubeconfig ${opts.file}: set current-context`);
    return kc;
  }
  const env = opts.env ?? process.env;
  const home = opts.home ?? homedir();
  const files = (env.KUBECONFIG ?? '').split(':').filter((f) => f !== '');
  const homeConfig = join(home, '.kube', 'config');
  if (files.length === 0 && !existsSync(homeConfig)) {
    if (!existsSync(SERVICE_ACCOUNT_TOKEN)) {
      throw new NoKubeConfigError(`no Kubernetes configuration: KUBECONFIG is not set, ${homeConfig} does not exist, and there is no in-cluster service account (${SERVICE_ACCOUNT_TOKEN})`);
    }
    if (!env.KUBERNETES_SERVICE_HOST || !env.KUBERNETES_SERVICE_PORT) {
      throw new NoKubeConfigError('no Kubernetes configuration: a service account token is mounted, but KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set');
    }
  }
  try {
    kc.loadFromDefault();
  } catch (err) {
    throw new NoKubeConfigError(`cannot read the Kubernetes configuration (${files.length > 0 ? `KUBECONFIG=${files.join(':')}` : homeConfig}): ${(err as Error).message}`);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new NoKubeConfigError(`no current cluster in the Kubernetes configuration (${files.length > 0 ? `KUBECONFIG=${files.join(':')}` : homeConfig}): set current-context`);
  return kc;
}

/** The API server and context a KubeConfig talks to, for messages. */
export function describeKubeConfig(kc: KubeConfig): string {
  const server = kc.getCurrentCluster()?.server ?? '(no server)';
  const context = kc.getCurrentContext();
  return context && context !== 'inClusterContext' ? `${server} (context ${context})` : server;
}
