import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { inClusterConnection, KubeConnection, readKubeconfig } from '../../src/kube/connection.js';
import { describeKubeConfig, loadKubeConfig, NoKubeConfigError } from '../../src/kube/kubeconfig.js';
import { kubeRequest } from '../../src/kube/rest.js';
import { type ControlPlanePki, createControlPlanePki } from '../support/real-k8s/pki.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>, context: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u', ...context } }],
    'current-context': 'ctx',
  };
}

describe('an API server over TLS, reached without client-node, as the kubeconfig says', () => {
  let pki: ControlPlanePki;
  let server: Server;
  let url: string;
  let dir: string;
  const seen: { subject: string | undefined; authorization: string | undefined }[] = [];
  beforeAll(async () => {
    pki = await createControlPlanePki();
    dir = mkdtempSync(join(tmpdir(), 'kube-connection-'));
    server = createServer({ cert: pki.serving.certPem, key: pki.serving.keyPem, ca: pki.caPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      const cn = peer?.subject?.CN;
      seen.push({ subject: typeof cn === 'string' ? cn : undefined, authorization: req.headers.authorization });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ gitVersion: 'v1.36.3' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('presents the client certificate (data) and checks the server against the CA file, a path relative to the kubeconfig', async () => {
    writeFileSync(join(dir, 'ca.crt'), pki.caPem);
    const file = join(dir, 'certs.yaml');
    writeFileSync(file, toYaml(kubeconfig({ server: url, 'certificate-authority': 'ca.crt' }, { 'client-certificate-data': b64(pki.admin.certPem), 'client-key-data': b64(pki.admin.keyPem) }, { namespace: 'team-a' })));
    const kc = await loadKubeConfig({ file });
    expect(kc).toBeInstanceOf(KubeConnection);
    expect(describeKubeConfig(kc)).toBe(`${url} (context ctx)`);
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe('team-a');
    seen.length = 0;
    expect(await kubeRequest(kc, 'GET', '/version')).toEqual({ gitVersion: 'v1.36.3' });
    expect(seen).toEqual([{ subject: 'admin', authorization: undefined }]);
  });

  it('sends the token of a token file, and checks the certificate against tls-server-name when the server is an address', async () => {
    writeFileSync(join(dir, 'token'), 'first-token\n');
    const file = join(dir, 'token.yaml');
    writeFileSync(file, toYaml(kubeconfig({ server: url.replace('127.0.0.1', 'localhost'), 'certificate-authority-data': b64(pki.caPem), 'tls-server-name': 'kubernetes.default.svc' }, { tokenFile: join(dir, 'token') })));
    const kc = await loadKubeConfig({ file });
    seen.length = 0;
    await kubeRequest(kc, 'GET', '/version');
    expect(seen).toEqual([{ subject: undefined, authorization: 'Bearer first-token' }]);
  });

  it('refuses a server whose certificate the CA did not sign, naming the server', async () => {
    const other = await createControlPlanePki();
    const file = join(dir, 'wrong-ca.yaml');
    writeFileSync(file, toYaml(kubeconfig({ server: url, 'certificate-authority-data': b64(other.caPem) }, { token: 't' })));
    const kc = await loadKubeConfig({ file });
    await expect(kubeRequest(kc, 'GET', '/version')).rejects.toThrow(`GET /version: cannot reach the Kubernetes API server at ${url}: `);
  });
});

describe('which kubeconfigs are read without client-node', () => {
  it('a token, a token file, a client certificate: ours; exec, an auth provider, a password, a proxy: client-node', () => {
    const ours = (cluster: Record<string, unknown>, user: Record<string, unknown>) => 'connection' in readKubeconfig(kubeconfig({ server: 'https://k:6443', ...cluster }, user), '/etc/k/config');
    expect(ours({}, { token: 't' })).toBe(true);
    expect(ours({ 'insecure-skip-tls-verify': true }, {})).toBe(true);
    const clientNode = (cluster: Record<string, unknown>, user: Record<string, unknown>) => readKubeconfig(kubeconfig({ server: 'https://k:6443', ...cluster }, user), '/etc/k/config');
    expect(clientNode({}, { exec: { command: 'aws', apiVersion: 'client.authentication.k8s.io/v1' } })).toEqual({ clientNode: 'users[u].user.exec' });
    expect(clientNode({}, { 'auth-provider': { name: 'oidc' } })).toEqual({ clientNode: 'users[u].user.auth-provider' });
    expect(clientNode({}, { username: 'a', password: 'b' })).toEqual({ clientNode: 'users[u].user.username' });
    expect(clientNode({ 'proxy-url': 'http://proxy:3128' }, { token: 't' })).toEqual({ clientNode: 'clusters[c].cluster.proxy-url' });
  });

  it('resolves a relative token file against the kubeconfig folder, and a missing context or cluster is no current cluster', () => {
    const r = readKubeconfig(kubeconfig({ server: 'https://k:6443' }, { tokenFile: 'sa/token' }), '/etc/k/config');
    expect('connection' in r && r.connection.spec.tokenFile).toBe('/etc/k/sa/token');
    expect(readKubeconfig({ ...kubeconfig({ server: 'https://k' }, {}), 'current-context': 'nope' }, '/k')).toEqual({ noCurrentCluster: true });
    expect(readKubeconfig({ ...kubeconfig({ server: 'https://k' }, {}), clusters: [] }, '/k')).toEqual({ noCurrentCluster: true });
  });

  it.each([
    ['a server that is not a string', kubeconfig({ server: 6443 }, {}), 'clusters[c].cluster.server is 6443, not a string'],
    ['no server', kubeconfig({}, { token: 't' }), 'clusters[c].cluster.server is not set'],
    ['insecure-skip-tls-verify as a string', kubeconfig({ server: 'https://k', 'insecure-skip-tls-verify': 'yes' }, {}), 'clusters[c].cluster.insecure-skip-tls-verify is "yes", not true or false'],
    ['a certificate without its key', kubeconfig({ server: 'https://k' }, { 'client-certificate-data': b64('x') }), 'users[u].user has a client certificate without its key'],
    ['a CA file that is not there', kubeconfig({ server: 'https://k', 'certificate-authority': 'missing.crt' }, {}), 'clusters[c].cluster.certificate-authority: cannot read /nowhere/missing.crt: ENOENT'],
    ['clusters that are not a list', { ...kubeconfig({ server: 'https://k' }, {}), clusters: { c: {} } }, 'clusters is not a list'],
  ])('refuses %s, naming the field', (_what, doc, message) => {
    expect(() => readKubeconfig(doc, '/nowhere/config')).toThrow(message);
  });

  it('loadKubeConfig wraps what is wrong in the message naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-connection-'));
    try {
      const file = join(dir, 'config');
      writeFileSync(file, toYaml(kubeconfig({ server: 7 }, {})));
      await expect(loadKubeConfig({ file })).rejects.toThrow(new NoKubeConfigError(`cannot read --kubeconfig ${file}: clusters[c].cluster.server is 7, not a string`));
      writeFileSync(file, toYaml({ ...kubeconfig({ server: 'https://k' }, {}), 'current-context': '' }));
      await expect(loadKubeConfig({ file })).rejects.toThrow(`no current cluster in --kubeconfig ${file}: set current-context`);
      writeFileSync(file, toYaml(kubeconfig({ server: 'https://k' }, { exec: { command: 'true', apiVersion: 'client.authentication.k8s.io/v1' } })));
      const kc = await loadKubeConfig({ file });
      expect(kc).not.toBeInstanceOf(KubeConnection);
      expect(describeKubeConfig(kc)).toBe('https://k (context ctx)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a pod's in-cluster connection", () => {
  it("reads the service account's CA and namespace, brackets an IPv6 host, and reads the token again once a minute", () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-in-cluster-'));
    try {
      const files = { token: join(dir, 'token'), ca: join(dir, 'ca.crt'), namespace: join(dir, 'namespace') };
      writeFileSync(files.token, 'one');
      writeFileSync(files.ca, 'PEM');
      writeFileSync(files.namespace, 'spire-server');
      const kc = inClusterConnection({ KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, files);
      expect(kc.getCurrentCluster().server).toBe('https://[fd00::1]:443');
      expect(describeKubeConfig(kc)).toBe('https://[fd00::1]:443');
      expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe('spire-server');
      expect(kc.bearerToken(1_000)).toBe('one');
      writeFileSync(files.token, 'two');
      expect(kc.bearerToken(30_000)).toBe('one');
      expect(kc.bearerToken(62_000)).toBe('two');
      rmSync(files.token);
      expect(kc.bearerToken(200_000)).toBe('two');
      rmSync(files.ca);
      expect(() => inClusterConnection({ KUBERNETES_SERVICE_HOST: 'k', KUBERNETES_SERVICE_PORT: '443' }, files)).toThrow(`cannot read the service account's CA ${files.ca}: ENOENT`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
