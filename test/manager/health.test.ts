import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Check, type Observability, ping, readinessGates, serveObservability } from '../../src/manager/health.js';
import { parseBindAddress } from '../../src/net/http.js';
import { ControllerMetrics } from '../../src/manager/metrics.js';

/** A check whose outcome the test flips. */
function toggle(name: string, detail: string): Check & { failing: boolean } {
  return {
    name,
    failing: true,
    check() {
      return this.failing ? { ok: false, detail } : { ok: true };
    },
  };
}

const open: Observability[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function serve(opts: Partial<Parameters<typeof serveObservability>[0]> = {}): Promise<Observability> {
  const o = await serveObservability({
    metricsBindAddress: '127.0.0.1:0',
    healthProbeBindAddress: '127.0.0.1:0',
    readinessPath: '/readyz',
    livenessPath: '/healthz',
    metrics: new ControllerMetrics(),
    readiness: [],
    liveness: [ping],
    ...opts,
  });
  open.push(o);
  return o;
}

async function get(address: string, path: string, init?: RequestInit): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://${address}${path}`, init);
  return { status: res.status, body: await res.text() };
}

/** A port someone else holds, on 127.0.0.1. */
async function occupiedPort(): Promise<{ port: number; release: () => Promise<void> }> {
  const s: Server = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  return { port, release: () => new Promise((resolve) => s.close(() => resolve())) };
}

describe('a kubelet probing readiness sees why the controller is not ready', () => {
  it('answers 503 with one line per failing check, then 200 "ok" once all pass', async () => {
    const synced = toggle('informers', 'pods not synced yet');
    const spire = toggle('spire', 'socket /tmp/x.sock unreachable');
    const o = await serve({ readiness: [synced, spire] });

    let r = await get(o.healthAddress!, '/readyz');
    expect(r.status).toBe(503);
    expect(r.body.trim().split('\n')).toEqual(['informers: pods not synced yet', 'spire: socket /tmp/x.sock unreachable']);

    synced.failing = false;
    r = await get(o.healthAddress!, '/readyz');
    expect(r.status).toBe(503);
    expect(r.body.trim()).toBe('spire: socket /tmp/x.sock unreachable');

    spire.failing = false;
    r = await get(o.healthAddress!, '/readyz');
    expect(r).toEqual({ status: 200, body: 'ok' });
  });

  it('treats a check that throws as failing, with the error as its detail', async () => {
    const o = await serve({
      readiness: [
        {
          name: 'broken',
          check() {
            throw new Error('boom');
          },
        },
      ],
    });
    const r = await get(o.healthAddress!, '/readyz');
    expect(r.status).toBe(503);
    expect(r.body).toContain('broken: check threw: boom');
  });

  it('says "failed" for a failing check that gives no detail', async () => {
    const o = await serve({ readiness: [{ name: 'quiet', check: () => ({ ok: false }) }] });
    expect((await get(o.healthAddress!, '/readyz')).body.trim()).toBe('quiet: failed');
  });
});

describe('liveness is judged separately from readiness', () => {
  it('stays 200 while readiness fails, and fails on its own checks only', async () => {
    const notReady = toggle('spire', 'unreachable');
    const wedged = toggle('loop', 'no pass for 600s');
    wedged.failing = false;
    const o = await serve({ readiness: [notReady], liveness: [ping, wedged] });

    expect((await get(o.healthAddress!, '/readyz')).status).toBe(503);
    expect(await get(o.healthAddress!, '/healthz')).toEqual({ status: 200, body: 'ok' });

    notReady.failing = false;
    wedged.failing = true;
    expect((await get(o.healthAddress!, '/readyz')).status).toBe(200);
    const live = await get(o.healthAddress!, '/healthz');
    expect(live.status).toBe(503);
    expect(live.body.trim()).toBe('loop: no pass for 600s');
  });

  it('serves the configured endpoint names, with or without a leading slash', async () => {
    const o = await serve({ readinessPath: 'ready', livenessPath: '/live' });
    expect((await get(o.healthAddress!, '/ready')).status).toBe(200);
    expect((await get(o.healthAddress!, '/live')).status).toBe(200);
    expect((await get(o.healthAddress!, '/readyz')).status).toBe(404);
  });

  it('refuses the same path for both, which would hide one of them', async () => {
    await expect(serve({ readinessPath: '/healthz', livenessPath: '/healthz' })).rejects.toThrow(/must differ/);
  });
});

describe('?verbose lists every check the way Kubernetes healthz does', () => {
  it('marks passing checks [+] and failing ones [-] with their detail, and ends with a summary', async () => {
    const spire = toggle('spire', 'unreachable');
    const o = await serve({ readiness: [ping, spire] });

    let r = await get(o.healthAddress!, '/readyz?verbose');
    expect(r.status).toBe(503);
    expect(r.body.trim().split('\n')).toEqual(['[+]ping ok', '[-]spire failed: unreachable', 'readiness check failed']);

    spire.failing = false;
    r = await get(o.healthAddress!, '/readyz?verbose=1');
    expect(r.status).toBe(200);
    expect(r.body.trim().split('\n')).toEqual(['[+]ping ok', '[+]spire ok', 'readiness check passed']);

    r = await get(o.healthAddress!, '/healthz?verbose');
    expect(r.body.trim().split('\n')).toEqual(['[+]ping ok', 'liveness check passed']);
  });
});

describe('anything else is not found', () => {
  it('answers 404 for unknown paths, probes on the metrics server and metrics on the probe server', async () => {
    const o = await serve();
    expect((await get(o.healthAddress!, '/')).status).toBe(404);
    expect((await get(o.healthAddress!, '/readyz/ping')).status).toBe(404);
    expect((await get(o.healthAddress!, '/metrics')).status).toBe(404);
    expect((await get(o.healthAddress!, '/healthz')).status).toBe(200);
    expect((await get(o.metricsAddress!, '/readyz')).status).toBe(404);
    expect((await get(o.metricsAddress!, '/metricsz')).status).toBe(404);
    expect((await get(o.metricsAddress!, '/metrics')).status).toBe(200);
  });

  it('answers 405 to methods other than GET and HEAD', async () => {
    const o = await serve();
    const r = await fetch(`http://${o.healthAddress}/healthz`, { method: 'POST' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD');
    expect((await fetch(`http://${o.healthAddress}/healthz`, { method: 'HEAD' })).status).toBe(200);
  });
});

describe('an operator chooses where each endpoint listens', () => {
  it('starts no server for an address of "0" or ""', async () => {
    for (const off of ['0', '']) {
      const o = await serve({ metricsBindAddress: off, healthProbeBindAddress: off });
      expect(o.metricsAddress).toBeUndefined();
      expect(o.healthAddress).toBeUndefined();
    }
    const onlyHealth = await serve({ metricsBindAddress: '0' });
    expect(onlyHealth.metricsAddress).toBeUndefined();
    expect((await get(onlyHealth.healthAddress!, '/healthz')).status).toBe(200);
  });

  it('serves metrics and probes from one server when both addresses are the same', async () => {
    const { port, release } = await occupiedPort();
    await release(); // now a free port, known in advance, as an operator would write it
    const o = await serve({ metricsBindAddress: `127.0.0.1:${port}`, healthProbeBindAddress: `127.0.0.1:${port}` });
    expect(o.metricsAddress).toBe(`127.0.0.1:${port}`);
    expect(o.healthAddress).toBe(o.metricsAddress);
    expect((await get(o.metricsAddress!, '/metrics')).status).toBe(200);
    expect((await get(o.metricsAddress!, '/readyz')).status).toBe(200);
    expect((await get(o.metricsAddress!, '/healthz')).status).toBe(200);
  });

  it('returns the actual port when port 0 asks for an ephemeral one, a separate one for each server', async () => {
    const o = await serve({ metricsBindAddress: '127.0.0.1:0', healthProbeBindAddress: '127.0.0.1:0' });
    expect(o.metricsAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(o.metricsAddress).not.toBe('127.0.0.1:0');
    expect(o.healthAddress).not.toBe(o.metricsAddress);
  });

  it('fails with an error naming the address when the port is in use, leaving nothing listening', async () => {
    const { port, release } = await occupiedPort();
    try {
      await expect(serve({ healthProbeBindAddress: `127.0.0.1:${port}` })).rejects.toThrow(
        `cannot serve health probes on 127.0.0.1:${port}: address already in use`,
      );
      await expect(serve({ metricsBindAddress: `127.0.0.1:${port}`, healthProbeBindAddress: '' })).rejects.toThrow(
        `cannot serve metrics on 127.0.0.1:${port}: address already in use`,
      );
    } finally {
      await release();
    }
  });

  it('closes the metrics server it had started when the health server then fails to bind', async () => {
    const free = await occupiedPort();
    await free.release();
    const taken = await occupiedPort();
    try {
      await expect(serve({ metricsBindAddress: `127.0.0.1:${free.port}`, healthProbeBindAddress: `127.0.0.1:${taken.port}` })).rejects.toThrow(
        /address already in use/,
      );
      // The metrics port is free again: a second start can take it.
      const o = await serve({ metricsBindAddress: `127.0.0.1:${free.port}`, healthProbeBindAddress: '0' });
      expect(o.metricsAddress).toBe(`127.0.0.1:${free.port}`);
    } finally {
      await taken.release();
    }
  });

  it('rejects a malformed address with a message naming the setting', async () => {
    await expect(serve({ metricsBindAddress: '8080' })).rejects.toThrow('metrics bind address "8080": expected host:port or :port');
    await expect(serve({ healthProbeBindAddress: ':99999' })).rejects.toThrow('health probe bind address ":99999": port must be a number from 0 to 65535');
  });
});

describe('bind addresses are read in upstream’s forms', () => {
  it.each([
    [':8080', { port: 8080 }],
    ['0.0.0.0:8082', { host: '0.0.0.0', port: 8082 }],
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['[::1]:8080', { host: '::1', port: 8080 }],
    ['[::]:8083', { host: '::', port: 8083 }],
    ['localhost:9090', { host: 'localhost', port: 9090 }],
    ['0', undefined],
    ['', undefined],
  ])('%j', (input, expected) => {
    expect(parseBindAddress(input, 'x')).toEqual(expected);
  });

  it.each(['8080', '::1:8080', '[::1]8080', '[::1', ':http', ':65536', 'host:'])('refuses %j', (input) => {
    expect(() => parseBindAddress(input, 'metrics bind address')).toThrow(`metrics bind address "${input}"`);
  });
});

describe('conditions that do not decide readiness are still served, for people and alerts', () => {
  it('lists them in ?verbose marked so, serves each alone at /readyz/<name>, and exports spire_reconciler_check_ok', async () => {
    const synced = toggle('informers-synced', 'waiting for pods');
    const cert = toggle('webhook-certificate', 'no certificate yet');
    const metrics = new ControllerMetrics();
    const o = await serve({ metrics, readiness: readinessGates('sidecar', [synced, cert]), conditions: [synced, cert] });

    // The probe a kubelet runs: nothing of ours decides it in the SPIRE server's pod.
    expect(await get(o.healthAddress!, '/readyz')).toEqual({ status: 200, body: 'ok' });
    const verbose = await get(o.healthAddress!, '/readyz?verbose');
    expect(verbose.status).toBe(200);
    expect(verbose.body.trim().split('\n')).toEqual([
      '[-]informers-synced failed: waiting for pods (does not decide readiness)',
      '[-]webhook-certificate failed: no certificate yet (does not decide readiness)',
      'readiness check passed',
    ]);
    // What an alert or a person asks of one condition: its own status.
    expect(await get(o.healthAddress!, '/readyz/informers-synced')).toEqual({ status: 503, body: 'informers-synced: waiting for pods\n' });
    expect((await get(o.metricsAddress!, '/metrics')).body).toMatch(/^spire_reconciler_check_ok\{check="informers-synced"\} 0$/m);

    synced.failing = false;
    expect(await get(o.healthAddress!, '/readyz/informers-synced')).toEqual({ status: 200, body: 'ok' });
    expect((await get(o.metricsAddress!, '/metrics')).body).toMatch(/^spire_reconciler_check_ok\{check="informers-synced"\} 1$/m);
    expect((await get(o.metricsAddress!, '/metrics')).body).toMatch(/^spire_reconciler_check_ok\{check="webhook-certificate"\} 0$/m);
    expect((await get(o.healthAddress!, '/readyz/no-such-check')).status).toBe(404);
  });

  it('in a pod of its own (standalone), the same conditions decide readiness', async () => {
    const synced = toggle('informers-synced', 'waiting for pods');
    const o = await serve({ readiness: readinessGates('standalone', [synced]), conditions: [synced] });
    expect(await get(o.healthAddress!, '/readyz')).toEqual({ status: 503, body: 'informers-synced: waiting for pods\n' });
    expect((await get(o.healthAddress!, '/readyz?verbose')).body.trim().split('\n')).toEqual(['[-]informers-synced failed: waiting for pods', 'readiness check failed']);
    synced.failing = false;
    expect(await get(o.healthAddress!, '/readyz')).toEqual({ status: 200, body: 'ok' });
  });
});
