import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryWorkloadApi } from '../../src/memspire/index.js';
import { issueSvid } from '../../src/memspire/tls.js';
import type { ServiceDefinition } from '@grpc/proto-loader';
import { loadWorkloadDefinition, loadWorkloadGrpc } from '../../src/workloadapi/proto.js';
import { workloadApiSocket, type WorkloadApiProblem, X509Source, type X509SourceOptions } from '../../src/workloadapi/index.js';
import { CONTROLLER_ID, startWorkloadApi, type TestWorkloadApi, until } from '../support/workload-api.js';

const fast = { backoff: { minMs: 50, maxMs: 200 } };

describe("X509Source: the controller's SVID from the Workload API", () => {
  let t: TestWorkloadApi | undefined;
  let source: X509Source | undefined;
  const open = (opts: Partial<X509SourceOptions> = {}) => {
    source = new X509Source({ socket: t?.socketPath, trustDomain: 'example.org', ...fast, ...opts });
    return source;
  };
  afterEach(async () => {
    source?.close();
    source = undefined;
    await t?.close();
    t = undefined;
  });

  it('takes the first SVID: its ID, chain, key, expiry and the bundle of its trust domain', async () => {
    t = await startWorkloadApi();
    const context = await open().ready();
    const svid = context.svids[0]!;
    expect(svid.spiffeId).toBe(CONTROLLER_ID);
    expect(svid.trustDomain).toBe('example.org');
    expect(svid.serialNumber).toBe(t.api.svid.serialNumber);
    expect(svid.certChain).toEqual(t.api.svid.certChain);
    expect(svid.privateKey).toEqual(t.api.svid.privateKey);
    expect(svid.notAfter).toEqual(t.api.svid.notAfter);
    expect(context.bundles.get('example.org')?.map((a) => a.der)).toEqual([t.spire.ca.der]);
    expect(source?.problem).toBeUndefined();
    // The call carried the header an agent requires.
    expect(t.api.calls.map((c) => c.header)).toEqual([true]);
  });

  it('follows rotations: each new SVID replaces the context before the old one expires', async () => {
    t = await startWorkloadApi({ ttlSeconds: 2, rotateAfter: 0.4 });
    const s = open();
    const seen: { serial: string; at: number; previousNotAfter: number | undefined }[] = [];
    let previous: number | undefined;
    s.onUpdate((c) => {
      seen.push({ serial: c!.svids[0]!.serialNumber, at: Date.now(), previousNotAfter: previous });
      previous = c!.svids[0]!.notAfter.getTime();
    });
    await until(() => seen.length >= 3, 'three SVIDs');
    expect(new Set(seen.map((u) => u.serial)).size).toBe(seen.length);
    for (const u of seen.slice(1)) expect(u.at).toBeLessThan(u.previousNotAfter!);
    expect(s.svid()?.serialNumber).toBe(seen.at(-1)?.serial);
    // One stream carried them all.
    expect(t.api.calls).toHaveLength(1);
  });

  it('keeps the last good context while the agent restarts, then dials again and takes its answer', async () => {
    t = await startWorkloadApi();
    const s = open();
    const first = await s.ready();
    const problems: (WorkloadApiProblem | undefined)[] = [];
    s.onProblem((p) => problems.push(p));
    await t.api.stop();
    await until(() => problems.some((p) => p?.cause === 'no-socket'), 'the missing socket to be reported');
    expect(s.current()).toBe(first);
    await t.api.resume();
    await until(() => s.updates === 2, 'a second answer');
    expect(s.problem).toBeUndefined();
    expect(problems.at(-1)).toBeUndefined();
    expect(t.api.calls.length).toBeGreaterThanOrEqual(2);
  });

  it('drops a context whose SVID expired unrenewed, and says so', async () => {
    // 3 s: a shorter SVID can expire on the way on a loaded machine, and an expired one never makes the source ready.
    t = await startWorkloadApi({ ttlSeconds: 3, rotateAfter: 100 });
    const s = open();
    await s.ready();
    const updates: unknown[] = [];
    s.onUpdate((c) => updates.push(c));
    await until(() => s.current() === undefined, 'the context to expire', 10_000);
    expect(updates).toEqual([undefined]);
    expect(s.problem?.cause).toBe('expired');
    expect(s.problem?.message).toMatch(
      new RegExp(`^the X\\.509 SVID ${CONTROLLER_ID} from the SPIRE agent at ${t.socketPath} expired at \\S+Z and no renewed one came: is the agent connected to the SPIRE server\\?$`),
    );
  });
});

describe('X509Source classifies why it has no SVID, says what to do, and retries', () => {
  let t: TestWorkloadApi | undefined;
  let source: X509Source | undefined;
  afterEach(async () => {
    source?.close();
    source = undefined;
    await t?.close();
    t = undefined;
  });

  /** The source's first problem, and every cause it reported. */
  async function firstProblem(opts: X509SourceOptions): Promise<{ problem: WorkloadApiProblem; source: X509Source }> {
    source = new X509Source({ ...fast, ...opts });
    const s = source;
    await until(() => s.problem !== undefined, 'a problem');
    return { problem: s.problem!, source: s };
  }

  it('no socket file: names the path and the setting, then takes the SVID once the agent is there', async () => {
    t = await startWorkloadApi();
    const path = join(t.dir, 'later.sock');
    const { problem, source: s } = await firstProblem({ socket: `unix://${path}`, trustDomain: 'example.org' });
    expect(problem.cause).toBe('no-socket');
    expect(problem.message).toBe(
      `no Workload API socket at ${path}: is the SPIRE agent running on this node, and its socket mounted where workloadAPISocketPath (or SPIFFE_ENDPOINT_SOCKET) says?`,
    );
    const later = await MemoryWorkloadApi.start({ socketPath: path, spire: t.spire, spiffeId: CONTROLLER_ID });
    try {
      expect((await s.ready()).svids[0]?.serialNumber).toBe(later.svid.serialNumber);
      expect(s.problem).toBeUndefined();
    } finally {
      s.close();
      await later.close();
    }
  });

  it('a path that is not a socket', async () => {
    t = await startWorkloadApi();
    const path = join(t.dir, 'plain-file');
    writeFileSync(path, '');
    const { problem } = await firstProblem({ socket: path, trustDomain: 'example.org' });
    expect(problem).toMatchObject({
      cause: 'not-a-socket',
      message: `${path} exists but is not a socket: workloadAPISocketPath (or SPIFFE_ENDPOINT_SOCKET) must name the SPIRE agent's Workload API socket`,
    });
  });

  it('a socket nobody listens on: connection refused', async () => {
    t = await startWorkloadApi();
    const path = join(t.dir, 'dead.sock');
    // A process that binds the socket and dies without removing it, as a crashed agent leaves it.
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`]);
      child.once('exit', () => resolve());
      child.once('error', reject);
    });
    const { problem } = await firstProblem({ socket: path, trustDomain: 'example.org' });
    expect(problem).toMatchObject({ cause: 'no-answer', message: `the SPIRE agent does not answer on ${path} (connection refused): is the agent running and healthy?` });
  });

  it('an agent that accepts the call and never answers', async () => {
    t = await startWorkloadApi({ mode: 'hang' });
    const { problem } = await firstProblem({ socket: t.socketPath, trustDomain: 'example.org', answerTimeoutMs: 300 });
    expect(problem).toMatchObject({
      cause: 'no-answer',
      message: `the SPIRE agent does not answer on ${t.socketPath} (no X.509 SVID within 0.3s of asking): is the agent running and healthy?`,
    });
  });

  it('"no identity issued": the admin entry is missing or not synced; names spire-reconciler bootstrap; takes the SVID once issued', async () => {
    t = await startWorkloadApi({ mode: 'no-identity' });
    const api = t.api;
    const { problem, source: s } = await firstProblem({ socket: t.socketPath, trustDomain: 'example.org' });
    expect(problem).toMatchObject({
      cause: 'no-identity',
      message: `the SPIRE agent at ${t.socketPath} issued no identity to this process (PERMISSION_DENIED "no identity issued"): the controller's admin entry is missing or not yet synced to the agent; create it with \`spire-reconciler bootstrap\``,
    });
    // Retried, not thrown: more calls come while it is refused.
    await until(() => api.calls.length >= 3, 'retries');
    await api.setMode('serve');
    await s.ready();
    expect(s.problem).toBeUndefined();
  });

  it('an expired bundle: no context, the cause says expired', async () => {
    t = await startWorkloadApi({ mode: 'expired-bundle' });
    const { problem, source: s } = await firstProblem({ socket: t.socketPath, trustDomain: 'example.org' });
    expect(problem.cause).toBe('expired');
    expect(problem.message).toMatch(
      new RegExp(`^every X\\.509 authority the SPIRE agent at ${t.socketPath} gave for example\\.org has expired \\(the last at \\S+Z\\): is the agent connected to the SPIRE server\\?$`),
    );
    expect(s.current()).toBeUndefined();
  });

  it('an SVID of another trust domain', async () => {
    t = await startWorkloadApi({ mode: 'foreign-trust-domain' });
    const { problem, source: s } = await firstProblem({ socket: t.socketPath, trustDomain: 'example.org' });
    expect(problem).toMatchObject({
      cause: 'trust-domain-mismatch',
      message: `the SPIRE agent at ${t.socketPath} issued spiffe://elsewhere.test/spire-reconciler, which is not in trust domain example.org (trustDomain): the agent belongs to another trust domain, or trustDomain is wrong`,
    });
    expect(s.current()).toBeUndefined();
  });

  it('a controller configured for another trust domain than its agent', async () => {
    t = await startWorkloadApi({ spiffeId: 'spiffe://example.org/spire-reconciler' });
    // The controller says its trust domain is another one than the agent's.
    const { problem } = await firstProblem({ socket: t.socketPath, trustDomain: 'other.org' });
    expect(problem.cause).toBe('trust-domain-mismatch');
    expect(problem.message).toBe(
      `the SPIRE agent at ${t.socketPath} issued ${CONTROLLER_ID}, which is not in trust domain other.org (trustDomain): the agent belongs to another trust domain, or trustDomain is wrong`,
    );
  });
});

/** A Workload API on `path` that answers every FetchX509SVID with `answer`: for answers the fake does not give. */
async function scriptedAgent(path: string, answer: (stream: grpc.ServerWritableStream<unknown, unknown>) => void): Promise<grpc.Server> {
  const server = new grpc.Server();
  server.addService(loadWorkloadDefinition()['SpiffeWorkloadAPI'] as ServiceDefinition, { FetchX509SVID: answer });
  await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${path}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
  return server;
}

describe('X509Source says "agent-error" for any other answer', () => {
  let t: TestWorkloadApi | undefined;
  let source: X509Source | undefined;
  let agent: grpc.Server | undefined;
  afterEach(async () => {
    source?.close();
    agent?.forceShutdown();
    await t?.close();
    t = source = agent = undefined;
  });

  it('another status, with its code and details', async () => {
    t = await startWorkloadApi();
    const path = join(t.dir, 'scripted.sock');
    agent = await scriptedAgent(path, (stream) => stream.emit('error', { code: grpc.status.INTERNAL, details: 'the cache is gone' }));
    const s = (source = new X509Source({ socket: path, trustDomain: 'example.org', ...fast }));
    await until(() => s.problem !== undefined, 'a problem');
    expect(s.problem).toMatchObject({ cause: 'agent-error', message: `the SPIRE agent at ${path} answered INTERNAL: the cache is gone` });
  });

  it('an SVID whose key does not match its certificate', async () => {
    t = await startWorkloadApi();
    const other = t.api.svid;
    const fresh = await t.api.rotate();
    const path = join(t.dir, 'scripted.sock');
    agent = await scriptedAgent(path, (stream) => {
      stream.write({ svids: [{ spiffe_id: CONTROLLER_ID, x509_svid: fresh.certChain[0], x509_svid_key: other.privateKey, bundle: t!.spire.ca.der, hint: '' }], crl: [], federated_bundles: {} });
    });
    const s = (source = new X509Source({ socket: path, trustDomain: 'example.org', ...fast }));
    await until(() => s.problem !== undefined, 'a problem');
    expect(s.problem).toMatchObject({
      cause: 'agent-error',
      message: `the SPIRE agent at ${path} sent an X.509 SVID response that cannot be used: SVID 1 (${CONTROLLER_ID}): its private key cannot be used: it does not match the leaf certificate`,
    });
    expect(s.current()).toBeUndefined();
  });
});

describe('X509Source presents the preferred SVID where the agent gives several', () => {
  let t: TestWorkloadApi | undefined;
  let source: X509Source | undefined;
  let agent: grpc.Server | undefined;
  afterEach(async () => {
    source?.close();
    agent?.forceShutdown();
    await t?.close();
    t = source = agent = undefined;
  });

  it("takes the SVID of preferredId first, and the agent's first without it", async () => {
    t = await startWorkloadApi();
    const other = await issueSvid(t.spire.ca, 'spiffe://example.org/ns/spire-server/sa/spire-reconciler', 3600);
    const ours = t.api.svid;
    const path = join(t.dir, 'scripted.sock');
    const svid = (s: typeof ours, id: string) => ({ spiffe_id: id, x509_svid: Buffer.concat(s.certChain), x509_svid_key: s.privateKey, bundle: t!.spire.ca.der, hint: '' });
    // A catch-all entry listed first, as the agent may list it.
    agent = await scriptedAgent(path, (stream) => {
      stream.write({ svids: [svid(other, 'spiffe://example.org/ns/spire-server/sa/spire-reconciler'), svid(ours, CONTROLLER_ID)], crl: [], federated_bundles: {} });
    });
    const preferring = (source = new X509Source({ socket: path, trustDomain: 'example.org', preferredId: CONTROLLER_ID, ...fast }));
    await preferring.ready();
    expect(preferring.svid()?.spiffeId).toBe(CONTROLLER_ID);
    expect(preferring.current()?.svids.map((x) => x.spiffeId)).toEqual([CONTROLLER_ID, 'spiffe://example.org/ns/spire-server/sa/spire-reconciler']);
    preferring.close();
    const plain = (source = new X509Source({ socket: path, trustDomain: 'example.org', ...fast }));
    await plain.ready();
    expect(plain.svid()?.spiffeId).toBe('spiffe://example.org/ns/spire-server/sa/spire-reconciler');
  });
});

describe('the Workload API fake checks what an agent checks', () => {
  it("refuses a call without the workload.spiffe.io header, in the agent's words", async () => {
    const t = await startWorkloadApi();
    const Api = loadWorkloadGrpc().SpiffeWorkloadAPI;
    const client = new Api(`unix://${t.socketPath}`, grpc.credentials.createInsecure());
    try {
      const status = await new Promise<grpc.StatusObject>((resolve) => {
        const call = client.FetchX509SVID({});
        call.on('error', () => undefined);
        call.on('status', resolve);
      });
      expect({ code: status.code, details: status.details }).toEqual({ code: grpc.status.INVALID_ARGUMENT, details: 'security header missing from request' });
      expect(t.api.calls).toEqual([{ at: expect.any(Number), header: false }]);
    } finally {
      client.close();
      await t.close();
    }
  });
});

describe('the Workload API socket is read from the config or SPIFFE_ENDPOINT_SOCKET', () => {
  it.each([
    ['/run/spire/agent.sock', {}, '/run/spire/agent.sock'],
    ['unix:///run/spire/agent.sock', {}, '/run/spire/agent.sock'],
    [undefined, { SPIFFE_ENDPOINT_SOCKET: 'unix:///spiffe-workload-api/spire-agent.sock' }, '/spiffe-workload-api/spire-agent.sock'],
    ['/configured.sock', { SPIFFE_ENDPOINT_SOCKET: 'unix:///from-env.sock' }, '/configured.sock'],
  ])('%s with %j', (configured, env, path) => {
    expect(workloadApiSocket(configured, env)).toEqual({ target: `unix://${path}`, path });
  });

  it('refuses nothing configured, a relative path and the tcp:// form', () => {
    expect(() => workloadApiSocket(undefined, {})).toThrow(
      "no Workload API socket: set workloadAPISocketPath or SPIFFE_ENDPOINT_SOCKET to the SPIRE agent's socket (unix:///path or /path)",
    );
    expect(() => workloadApiSocket('agent.sock', {})).toThrow(`workloadAPISocketPath "agent.sock" must be an absolute path or unix:///absolute/path (the SPIRE agent's Workload API socket)`);
    expect(() => workloadApiSocket(undefined, { SPIFFE_ENDPOINT_SOCKET: 'tcp://127.0.0.1:8000' })).toThrow('SPIFFE_ENDPOINT_SOCKET "tcp://127.0.0.1:8000" must be');
  });
});
