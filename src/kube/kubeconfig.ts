import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig as ClientNodeKubeConfig } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { inClusterConnection, type KubeConfig, readKubeconfig, SERVICE_ACCOUNT } from './connection.js';
import { errorMessage } from '../api/errors.js';

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
 *
 * The in-cluster config and one kubeconfig file whose user has a token, a
 * token file or a client certificate are read here (KubeConnection); for
 * anything else (several KUBECONFIG files to merge, exec plugins, auth
 * providers, a proxy) client-node is loaded and reads it.
 */
export async function loadKubeConfig(opts: { file?: string; env?: NodeJS.ProcessEnv; home?: string } = {}): Promise<KubeConfig> {
  if (opts.file) return loadFile(opts.file, `--kubeconfig ${opts.file}`, (reason) => `cannot read --kubeconfig ${opts.file}: ${reason}`);
  const env = opts.env ?? process.env;
  const home = opts.home ?? homedir();
  const files = (env.KUBECONFIG ?? '').split(':').filter((f) => f !== '');
  const homeConfig = join(home, '.kube', 'config');
  const where = `the Kubernetes configuration (${files.length > 0 ? `KUBECONFIG=${files.join(':')}` : homeConfig})`;
  const cannotRead = (reason: string) => `cannot read ${where}: ${reason}`;
  if (files.length === 0 && !existsSync(homeConfig)) {
    if (!existsSync(SERVICE_ACCOUNT.token)) {
      throw new NoKubeConfigError(`no Kubernetes configuration: KUBECONFIG is not set, ${homeConfig} does not exist, and there is no in-cluster service account (${SERVICE_ACCOUNT.token})`);
    }
    if (!env.KUBERNETES_SERVICE_HOST || !env.KUBERNETES_SERVICE_PORT) {
      throw new NoKubeConfigError('no Kubernetes configuration: a service account token is mounted, but KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set');
    }
    try {
      return inClusterConnection(env);
    } catch (err) {
      throw new NoKubeConfigError(cannotRead(errorMessage(err)));
    }
  }
  if (files.length <= 1) return loadFile(files[0] ?? homeConfig, where, cannotRead);
  // Several files are merged as client-go merges them: client-node does that.
  const kc = await clientNodeKubeConfig(cannotRead, (first, New) => {
    first.loadFromFile(files[0]!);
    for (const file of files.slice(1)) {
      const more = new New();
      more.loadFromFile(file);
      first.mergeConfig(more);
    }
  });
  if (!kc.getCurrentCluster()) throw new NoKubeConfigError(`no current cluster in ${where}: set current-context`);
  return kc;
}

async function loadFile(file: string, where: string, cannotRead: (reason: string) => string): Promise<KubeConfig> {
  let reading;
  try {
    reading = readKubeconfig(parseYaml(readFileSync(file, 'utf8')), file);
  } catch (err) {
    throw new NoKubeConfigError(cannotRead(errorMessage(err)));
  }
  if ('noCurrentCluster' in reading) throw new NoKubeConfigError(`no current cluster in ${where}: set current-context`);
  if ('connection' in reading) return reading.connection;
  const kc = await clientNodeKubeConfig(cannotRead, (c) => c.loadFromFile(file));
  if (!kc.getCurrentCluster()) throw new NoKubeConfigError(`no current cluster in ${where}: set current-context`);
  return kc;
}

/** client-node's KubeConfig, loaded now (the module is imported only for a kubeconfig that needs it). */
async function clientNodeKubeConfig(cannotRead: (reason: string) => string, load: (kc: ClientNodeKubeConfig, New: typeof ClientNodeKubeConfig) => void): Promise<ClientNodeKubeConfig> {
  const { KubeConfig: ClientNode } = await import('@kubernetes/client-node');
  const kc = new ClientNode();
  try {
    load(kc, ClientNode);
  } catch (err) {
    throw new NoKubeConfigError(cannotRead(errorMessage(err)));
  }
  return kc;
}

/** The API server and context a KubeConfig talks to, for messages. */
export function describeKubeConfig(kc: KubeConfig): string {
  const server = kc.getCurrentCluster()?.server ?? '(no server)';
  const context = kc.getCurrentContext();
  return context && context !== 'inClusterContext' ? `${server} (context ${context})` : server;
}
