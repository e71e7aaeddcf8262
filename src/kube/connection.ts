import { readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { dirname, isAbsolute, join } from 'node:path';
import type { KubeConfig as ClientNodeKubeConfig } from '@kubernetes/client-node';
import { errorMessage } from '../api/errors.js';
import type { TlsSettings } from './http-pool.js';

/**
 * How kube/ reaches the API server: a connection of our own (in-cluster, or
 * a kubeconfig whose user has a token, a token file or a client
 * certificate), or client-node's KubeConfig for every other kubeconfig (exec
 * plugins, auth providers, username and password, a proxy), loaded only
 * then: client-node loads its whole generated API, which is most of the
 * process's memory at a small cluster (docs/container-image.md, "Loading client-node").
 */
export type KubeConfig = KubeConnection | ClientNodeKubeConfig;

/** The files a pod's service account is mounted as. */
export const SERVICE_ACCOUNT = {
  token: '/var/run/secrets/kubernetes.io/serviceaccount/token',
  ca: '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt',
  namespace: '/var/run/secrets/kubernetes.io/serviceaccount/namespace',
};

/** client-go re-reads a token file (a projected service account token rotates) at most this often. */
const TOKEN_FILE_TTL_MS = 60_000;

interface ConnectionSpec {
  /** The current context's name; `inClusterContext` in a pod. */
  context: string;
  /** The current context's namespace, if it names one. */
  namespace?: string;
  clusterName: string;
  /** https://host:port */
  server: string;
  /** PEM: the CA that signs the server's certificate. */
  ca?: Buffer;
  /** PEM: the client certificate and its key. */
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  /** A file holding the bearer token, read again once a minute. */
  tokenFile?: string;
  /** The name the server's certificate is checked against, when not the server's host. */
  tlsServerName?: string;
  /** insecure-skip-tls-verify: the server's certificate is not checked. */
  insecure: boolean;
}

/**
 * A connection to the API server: where, with which TLS material, as whom.
 * Its accessors are named and shaped as client-node KubeConfig's, so that
 * code reading a cluster's server or the context's namespace serves both.
 */
export class KubeConnection {
  private token: { value: string; readAt: number } | undefined;

  constructor(readonly spec: ConnectionSpec) {}

  getCurrentCluster(): { name: string; server: string; skipTLSVerify: boolean; tlsServerName?: string } {
    const { clusterName: name, server, insecure: skipTLSVerify, tlsServerName } = this.spec;
    return { name, server, skipTLSVerify, tlsServerName };
  }

  getCurrentContext(): string {
    return this.spec.context;
  }

  getContextObject(name: string): { name: string; namespace?: string } | null {
    if (name !== this.spec.context) return null;
    return { name, namespace: this.spec.namespace };
  }

  /** The bearer token to send, if any: a token file is read again once the last read is a minute old (a rotated token), and a failed read keeps the last token. */
  bearerToken(now = Date.now()): string | undefined {
    if (this.spec.token) return this.spec.token;
    const file = this.spec.tokenFile;
    if (!file) return undefined;
    if (this.token && now - this.token.readAt < TOKEN_FILE_TTL_MS) return this.token.value;
    try {
      this.token = { value: readFileSync(file, 'utf8').trim(), readAt: now };
    } catch (err) {
      if (!this.token) throw new Error(`cannot read the bearer token file ${file}: ${errorMessage(err)}`, { cause: err });
    }
    return this.token.value;
  }

  /** What a connection to the server checks its certificate against and presents. */
  tlsSettings(): TlsSettings {
    const { ca, cert, key, insecure, tlsServerName } = this.spec;
    // Handed to tls.connect as its options: absent rather than undefined, so
    // Node's defaults (its root CAs, no client certificate, the host as SNI
    // name) apply rather than however an undefined value is read.
    return { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}), rejectUnauthorized: !insecure, ...(tlsServerName ? { servername: tlsServerName } : {}) };
  }
}

/** A kubeconfig that this module reads, or what makes it client-node's to read. */
type KubeconfigReading = { connection: KubeConnection } | { clientNode: string } | { noCurrentCluster: true };

const OWN_USER_FIELDS = new Set(['extensions', 'token', 'tokenFile', 'client-certificate', 'client-certificate-data', 'client-key', 'client-key-data']);
const OWN_CLUSTER_FIELDS = new Set(['server', 'certificate-authority', 'certificate-authority-data', 'insecure-skip-tls-verify', 'tls-server-name', 'extensions', 'disable-compression']);

/**
 * A parsed kubeconfig (one file) as a connection, when its current
 * context's user has only a token, a token file or a client certificate and
 * key (data or files), and its cluster needs no proxy; otherwise the reason
 * client-node reads it. Relative file paths are relative to the
 * kubeconfig's folder, as client-go resolves them. Throws, naming the field,
 * on a value of the wrong type or a file that cannot be read.
 */
export function readKubeconfig(doc: unknown, file: string): KubeconfigReading {
  if (!isRecord(doc)) throw new Error('not a kubeconfig: the document is not a mapping');
  const contextName = doc['current-context'];
  if (typeof contextName !== 'string' || contextName === '') return { noCurrentCluster: true };
  const context = named(doc, 'contexts', 'context', contextName);
  if (!context) return { noCurrentCluster: true };
  const clusterName = optionalString(context, 'cluster', `contexts[${contextName}].context`);
  const cluster = clusterName ? named(doc, 'clusters', 'cluster', clusterName) : undefined;
  if (!cluster || !clusterName) return { noCurrentCluster: true };
  const userName = optionalString(context, 'user', `contexts[${contextName}].context`);
  const user = userName ? (named(doc, 'users', 'user', userName) ?? {}) : {};
  const otherUser = Object.keys(user).find((k) => !OWN_USER_FIELDS.has(k) && user[k] !== undefined && user[k] !== null && user[k] !== '');
  if (otherUser) return { clientNode: `users[${userName}].user.${otherUser}` };
  const otherCluster = Object.keys(cluster).find((k) => !OWN_CLUSTER_FIELDS.has(k) && cluster[k] !== undefined && cluster[k] !== null && cluster[k] !== '');
  if (otherCluster) return { clientNode: `clusters[${clusterName}].cluster.${otherCluster}` };

  const at = (what: string, key: string) => `${what}.${key}`;
  const clusterAt = `clusters[${clusterName}].cluster`;
  const userAt = `users[${userName}].user`;
  const server = optionalString(cluster, 'server', clusterAt);
  if (!server) throw new Error(`${at(clusterAt, 'server')} is not set`);
  const folder = dirname(file);
  const pem = (where: string, dataKey: string, fileKey: string): Buffer | undefined => {
    const data = optionalString(where === clusterAt ? cluster : user, dataKey, where);
    if (data) return Buffer.from(data, 'base64');
    const path = optionalString(where === clusterAt ? cluster : user, fileKey, where);
    if (!path) return undefined;
    const absolute = isAbsolute(path) ? path : join(folder, path);
    try {
      return readFileSync(absolute);
    } catch (err) {
      throw new Error(`${at(where, fileKey)}: cannot read ${absolute}: ${errorMessage(err)}`, { cause: err });
    }
  };
  const insecure = cluster['insecure-skip-tls-verify'];
  if (insecure !== undefined && typeof insecure !== 'boolean') throw new Error(`${at(clusterAt, 'insecure-skip-tls-verify')} is ${JSON.stringify(insecure)}, not true or false`);
  const namespace = optionalString(context, 'namespace', `contexts[${contextName}].context`);
  const ca = pem(clusterAt, 'certificate-authority-data', 'certificate-authority');
  const cert = pem(userAt, 'client-certificate-data', 'client-certificate');
  const key = pem(userAt, 'client-key-data', 'client-key');
  if ((cert === undefined) !== (key === undefined)) throw new Error(`${userAt} has a client ${cert ? 'certificate without its key' : 'key without its certificate'}`);
  const token = optionalString(user, 'token', userAt);
  const tokenFile = optionalString(user, 'tokenFile', userAt);
  const tlsServerName = optionalString(cluster, 'tls-server-name', clusterAt);
  return {
    connection: new KubeConnection({
      context: contextName,
      namespace,
      clusterName,
      server,
      ca,
      cert,
      key,
      token,
      // A token is sent in place of a token file, as client-go does.
      tokenFile: !token && tokenFile ? (isAbsolute(tokenFile) ? tokenFile : join(folder, tokenFile)) : undefined,
      tlsServerName,
      insecure: insecure === true,
    }),
  };
}

/**
 * The connection of a pod to its cluster's API server, as client-go's
 * in-cluster config makes it: KUBERNETES_SERVICE_HOST and _PORT, the
 * service account's CA, token (read again as it rotates) and namespace.
 */
export function inClusterConnection(env: NodeJS.ProcessEnv, files = SERVICE_ACCOUNT): KubeConnection {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '';
  let ca: Buffer;
  try {
    ca = readFileSync(files.ca);
  } catch (err) {
    throw new Error(`cannot read the service account's CA ${files.ca}: ${errorMessage(err)}`, { cause: err });
  }
  let namespace: string | undefined;
  try {
    namespace = readFileSync(files.namespace, 'utf8').trim() || undefined;
  } catch {
    // no namespace file: the context names none, as client-go leaves it
  }
  return new KubeConnection({
    context: 'inClusterContext',
    namespace,
    clusterName: 'inCluster',
    // client-node's rule: the ports a plain-HTTP proxy listens on are spoken to in plain HTTP.
    server: `${['80', '8080', '8001'].includes(port) ? 'http' : 'https'}://${isIPv6(host) ? `[${host}]` : host}:${port}`,
    ca,
    tokenFile: files.token,
    insecure: false,
  });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The `inner` mapping of the entry named `name` in the list `list` (`clusters`, `users`, `contexts`). */
function named(doc: Record<string, unknown>, list: string, inner: string, name: string): Record<string, unknown> | undefined {
  const entries = doc[list];
  if (entries === undefined || entries === null) return undefined;
  if (!Array.isArray(entries)) throw new Error(`${list} is not a list`);
  const entry: unknown = entries.find((e) => isRecord(e) && e.name === name);
  if (!isRecord(entry)) return undefined;
  const value = entry[inner];
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw new Error(`${list}[${name}].${inner} is not a mapping`);
  return value;
}

function optionalString(obj: Record<string, unknown>, key: string, where: string): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new Error(`${where}.${key} is ${JSON.stringify(v)}, not a string`);
  return v;
}
