import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeConnection } from '../../src/kube/connection.js';
import { kubeRequest, kubeStream, listAll } from '../../src/kube/rest.js';
import { eventually } from '../kube-apiserver/helpers.js';
import { FakeKubeApiServer } from '../support/kube/index.js';

describe('requests to the API server reuse their connection and page through lists', () => {
  let kube: FakeKubeApiServer;
  beforeEach(async () => {
    kube = await FakeKubeApiServer.start();
    kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    for (let i = 0; i < 250; i++) {
      kube.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${String(i).padStart(3, '0')}`, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    }
  });
  afterEach(async () => {
    await kube.close();
  });

  it('opens one connection for many requests, although the kubeconfig has TLS settings (client-node makes an agent per request)', async () => {
    const kc = kube.kubeConfig();
    expect(kc.getCurrentCluster()?.skipTLSVerify).toBe(true);
    const before = kube.connections;
    for (let i = 0; i < 10; i++) await kubeRequest(kc, 'GET', '/api/v1/namespaces/default');
    await listAll(kc, '/api/v1/pods', { pageSize: 50 });
    // 16 requests; one agent per request (client-node's way) opened 15 connections here.
    expect(kube.connections - before).toBeLessThanOrEqual(2);
  });

  it('hands each page to onPage as it arrives, and returns the same objects in order', async () => {
    const pages: number[] = [];
    const seen: object[] = [];
    const list = await listAll(kube.kubeConfig(), '/api/v1/pods', {
      pageSize: 100,
      onPage: (items) => {
        pages.push(items.length);
        seen.push(...items);
      },
    });
    expect(pages).toEqual([100, 100, 50]);
    expect(list.items).toHaveLength(250);
    expect(list.items.every((item, i) => item === seen[i])).toBe(true);
    expect(list.items.map((p) => p.metadata?.name)).toEqual(Array.from({ length: 250 }, (_, i) => `p-${String(i).padStart(3, '0')}`));
    expect(list.metadata?.resourceVersion).toMatch(/^\d+$/);
  });
});

describe('answers are asked for gzip and decoded', () => {
  it('asks for compressed pages and decodes a gzip one, managedFields cut', async () => {
    const asked: (string | undefined)[] = [];
    const page = { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '7' }, items: [{ metadata: { name: 'a', managedFields: [{ manager: 'm' }] } }, { metadata: { name: 'b' } }] };
    const server = createServer((req, res) => {
      asked.push(req.headers['accept-encoding']);
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify(page)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const kc = new KubeConfig();
      const server_ = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      kc.loadFromOptions({ clusters: [{ name: 'c', server: server_, skipTLSVerify: true }], users: [{ name: 'u' }], contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x' });
      const list = await listAll(kc, '/api/v1/pods', { dropManagedFields: true });
      expect(list.items.map((p) => p.metadata)).toEqual([{ name: 'a' }, { name: 'b' }]);
      expect(list.metadata?.resourceVersion).toBe('7');
      expect(asked).toEqual(['gzip']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a page in a coding it did not ask for, naming it', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br' });
      res.end('not brotli');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const kc = new KubeConfig();
      kc.loadFromOptions({ clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }], users: [{ name: 'u' }], contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x' });
      await expect(listAll(kc, '/api/v1/pods', { dropManagedFields: true })).rejects.toThrow('GET /api/v1/pods: the API server answered with content-encoding "br", and only gzip was asked for');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('names the status and message of a page the server refuses', async () => {
    const kube = await FakeKubeApiServer.start();
    try {
      await expect(listAll(kube.kubeConfig(), '/api/v1/namespaces/default/nonesuch', { dropManagedFields: true })).rejects.toThrow(/GET \/api\/v1\/namespaces\/default\/nonesuch: 404/);
    } finally {
      await kube.close();
    }
  });

  it('rejects a page at the caller signal', async () => {
    const kube = await FakeKubeApiServer.start();
    try {
      const kc = kube.kubeConfig();
      kube.faults.hangNext(1, { pathIncludes: '/api/v1/pods' });
      const caller = new AbortController();
      const hung = kubeRequest(kc, 'GET', '/api/v1/pods', { dropManagedFields: true, signal: caller.signal });
      await eventually(() => kube.requests.some((r) => r.path === '/api/v1/pods'), 'the request reaches the server');
      caller.abort(new Error('deadline'));
      await expect(hung).rejects.toThrow('deadline');
    } finally {
      await kube.close();
    }
  });
});

describe('a request the API server never answers ends when its caller says so', () => {
  it('rejects at the caller signal, and the same client is answered again afterwards', async () => {
    const kube = await FakeKubeApiServer.start();
    try {
      const kc = kube.kubeConfig();
      kube.faults.hangNext(1, { pathIncludes: '/namespaces/default' });
      kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      const caller = new AbortController();
      const hung = kubeRequest(kc, 'GET', '/api/v1/namespaces/default', { signal: caller.signal });
      await eventually(() => kube.requests.some((r) => r.path === '/api/v1/namespaces/default'), 'the request reaches the server');
      caller.abort(new Error('deadline'));
      await expect(hung).rejects.toThrow('deadline');
      expect(kube.requests.at(-1)?.status).toBeUndefined();
      const ns = await kubeRequest<{ metadata: { name: string } }>(kc, 'GET', '/api/v1/namespaces/default');
      expect(ns.metadata.name).toBe('default');
    } finally {
      await kube.close();
    }
  });
});

/** The fake API server reached as a KubeConnection (a kubeconfig read without client-node), which sends through Node's HTTP client. */
function connectionTo(kube: FakeKubeApiServer): KubeConnection {
  return new KubeConnection({ context: 'fake', clusterName: 'fake', server: kube.url, token: 'fake-token', insecure: true });
}

describe("through Node's HTTP client, as a KubeConnection sends", () => {
  let kube: FakeKubeApiServer;
  beforeEach(async () => {
    kube = await FakeKubeApiServer.start();
    kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    for (let i = 0; i < 120; i++) kube.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}`, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
  });
  afterEach(async () => {
    await kube.close();
  });

  it('keeps one connection for many requests and pages through a list', async () => {
    const kc = connectionTo(kube);
    const before = kube.connections;
    for (let i = 0; i < 5; i++) await kubeRequest(kc, 'GET', '/api/v1/namespaces/default');
    const list = await listAll(kc, '/api/v1/pods', { pageSize: 50 });
    expect(list.items).toHaveLength(120);
    expect(kube.connections - before).toBe(1);
  });

  it("rejects at the caller signal with the signal's reason, and the same client is answered again afterwards", async () => {
    const kc = connectionTo(kube);
    kube.faults.hangNext(1, { pathIncludes: '/namespaces/default' });
    const caller = new AbortController();
    const hung = kubeRequest(kc, 'GET', '/api/v1/namespaces/default', { signal: caller.signal });
    await eventually(() => kube.requests.some((r) => r.path === '/api/v1/namespaces/default'), 'the request reaches the server');
    caller.abort(new Error('deadline'));
    await expect(hung).rejects.toThrow('deadline');
    const ns = await kubeRequest<{ metadata: { name: string } }>(kc, 'GET', '/api/v1/namespaces/default');
    expect(ns.metadata.name).toBe('default');
  });

  it("ends a watch's body at the caller signal, with the signal's reason", async () => {
    const kc = connectionTo(kube);
    const caller = new AbortController();
    const body = await kubeStream(kc, '/api/v1/pods', { query: { watch: 'true', resourceVersion: '1' }, signal: caller.signal });
    const read = (async () => {
      for await (const chunk of body) if (chunk.length > 0) caller.abort(new Error('stopped'));
    })();
    await expect(read).rejects.toThrow('stopped');
  });

  it('names the server and the reason when it cannot be reached', async () => {
    const kc = new KubeConnection({ context: 'x', clusterName: 'c', server: 'http://127.0.0.1:1', insecure: false });
    await expect(kubeRequest(kc, 'GET', '/version')).rejects.toThrow('GET /version: cannot reach the Kubernetes API server at http://127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1');
  });
});
