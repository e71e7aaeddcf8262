/**
 * What hostile or huge admission requests may cost the webhook, over real
 * HTTPS: a body over the limit is answered 413 (not a connection reset), a
 * body of millions of tiny values is refused before it is parsed, a few
 * requests are read and checked at once, holding a bounded number of body
 * bytes between them, while the rest wait their turn; a flood beyond the
 * queue, or a body without a length that outgrows the bytes free, is
 * answered 429; a body that does not arrive in time is answered 408 and
 * gives its turn up.
 */
import { request, type RequestOptions } from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GateLimits } from '../../src/webhook/gate.js';
import { ADMISSION_LIMITS, AdmissionServer, MAX_BODY_BYTES, MAX_BODY_VALUES } from '../../src/webhook/server.js';
import { issueFileCert, PATHS, post, review, waitFor } from './helpers.js';

const NAME = 'webhook.test';
let server: AdmissionServer;
let tls: { ca: string; servername: string };

let cert: Awaited<ReturnType<typeof issueFileCert>>;
const servers: AdmissionServer[] = [];

/** A webhook serving the test certificate, with `opts` (limits, body deadline) instead of the defaults. */
async function serve(opts: { limits?: GateLimits; bodyDeadlineMs?: number } = {}): Promise<AdmissionServer> {
  const s = new AdmissionServer({ host: '127.0.0.1', port: 0, trustDomain: 'example.org', log: pino({ level: 'silent' }), ...opts });
  await s.install({ certPem: cert.crt, keyPem: cert.key, notAfter: new Date(Date.now() + 3600_000) });
  servers.push(s);
  return s;
}

beforeAll(async () => {
  cert = await issueFileCert(undefined, NAME);
  server = await serve();
  tls = { ca: cert.caPem, servername: NAME };
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

interface Reply {
  status: number;
  body: string;
  headers: IncomingMessage['headers'];
}

/** A request whose body is written by the caller: `headers` decide between Content-Length and chunked. */
function openOn(to: AdmissionServer, headers: Record<string, string | number> = {}): { req: ClientRequest; reply: Promise<Reply> } {
  const opts: RequestOptions = { host: '127.0.0.1', port: to.port, path: PATHS.csid, method: 'POST', ca: tls.ca, servername: tls.servername, agent: false, headers: { 'content-type': 'application/json', ...headers } };
  let req!: ClientRequest;
  const reply = new Promise<Reply>((resolve, reject) => {
    req = request(opts, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  return { req, reply };
}

const open = (headers: Record<string, string | number> = {}) => openOn(server, headers);

/** Writes `total` bytes of `[{},{},...]`-like filler in 1 MiB pieces, respecting backpressure. */
async function writeFiller(req: ClientRequest, total: number): Promise<void> {
  const piece = Buffer.alloc(1024 * 1024, ' ');
  for (let sent = 0; sent < total; sent += piece.length) {
    const chunk = sent + piece.length > total ? piece.subarray(0, total - sent) : piece;
    if (!req.write(chunk)) await new Promise<void>((resolve) => req.once('drain', resolve));
  }
}

describe('a body over the limit is answered 413 with the reason, never with a reset', () => {
  it('declared by its Content-Length', async () => {
    const size = MAX_BODY_BYTES + 1024 * 1024;
    const { req, reply } = open({ 'content-length': size });
    await writeFiller(req, size);
    req.end();
    expect(await reply).toMatchObject({ status: 413, body: `request body over ${MAX_BODY_BYTES} bytes: an AdmissionReview from the API server is smaller (it accepts objects up to 3 MiB)\n` });
  });

  it('sent in chunks, without a length', async () => {
    const { req, reply } = open({ 'transfer-encoding': 'chunked' });
    await writeFiller(req, MAX_BODY_BYTES + 512 * 1024);
    req.end();
    expect((await reply).status).toBe(413);
  });

  it('and a body at the limit is read', async () => {
    const body = JSON.stringify(review('ClusterSPIFFEID', 'CREATE', { metadata: { name: 'x' }, spec: { spiffeIDTemplate: 'spiffe://example.org/x', hint: 'h'.repeat(1000) } }));
    const padded = body + ' '.repeat(MAX_BODY_BYTES - Buffer.byteLength(body));
    const r = await post(server.port, PATHS.csid, padded, tls);
    expect(r.status).toBe(200);
    expect(r.json.response.allowed).toBe(true);
  });
});

describe('a body whose parse would cost too much is refused before it is parsed', () => {
  it('8 MB of empty objects', async () => {
    const body = `[${'{},'.repeat(2_700_000)}{}]`;
    const r = await post(server.port, PATHS.csid, body, tls);
    expect(r.status).toBe(400);
    expect(r.json.response.status.message).toMatch(new RegExp(`^request body holds about \\d+ JSON values, over the limit of ${MAX_BODY_VALUES}`));
  });

  it('a review nested 10,000 deep', async () => {
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const body = JSON.stringify(review('ClusterSPIFFEID', 'CREATE', { metadata: { name: 'x' }, spec: { spiffeIDTemplate: 'spiffe://example.org/x' } })).replace('"spec":', `"junk":${deep},"spec":`);
    const r = await post(server.port, PATHS.csid, body, tls);
    expect(r.status).toBe(400);
    expect(r.json.response.status.message).toBe('request body: request.object.junk.a.a.a.a.a...: nests deeper than 100 levels; no Kubernetes object does');
  });

  it('a template of 50,000 actions is denied by the limits, not compiled', async () => {
    const spiffeIDTemplate = `spiffe://example.org/${'{{ .PodMeta.Name }}'.repeat(100_000)}`;
    const r = await post(server.port, PATHS.csid, JSON.stringify(review('ClusterSPIFFEID', 'CREATE', { metadata: { name: 'huge' }, spec: { spiffeIDTemplate } })), tls);
    expect(r.status).toBe(200);
    expect(r.json.response).toMatchObject({ allowed: false, status: { code: 403, message: `ClusterSPIFFEID huge: spec.spiffeIDTemplate: template is ${spiffeIDTemplate.length} bytes, over the limit of 16384` } });
  });
});

const { reviews: REVIEWS, waiting: WAITING, bytes: BYTES } = ADMISSION_LIMITS;
const BUSY = `too many admission requests at once (${REVIEWS} read and checked, holding at most ${BYTES} bytes, ${WAITING} waiting)\n`;

describe(`at most ${REVIEWS} requests are read and checked at once; the rest wait, and a flood is refused`, () => {
  // A body deadline past the test's length: opening the queue's connections on a loaded machine must not time the stalled clients out.
  let server: AdmissionServer;
  beforeAll(async () => {
    server = await serve({ bodyDeadlineMs: 120_000 });
  });
  const open = (headers: Record<string, string | number>) => openOn(server, headers);

  it('a stalled client holds one turn; the next request waits for it, and a full queue answers 429', { timeout: 60_000 }, async () => {
    const body = JSON.stringify(review('ClusterSPIFFEID', 'CREATE', { metadata: { name: 'x' }, spec: { spiffeIDTemplate: 'spiffe://example.org/x' } }));
    // Clients that send half a body and stop: each holds a turn.
    const stalled = Array.from({ length: REVIEWS }, () => open({ 'content-length': Buffer.byteLength(body) }));
    for (const s of stalled) s.req.write(body.slice(0, 10));
    await waitFor('every turn taken', () => server.load.reviewing === REVIEWS);

    const queued = Array.from({ length: WAITING }, () => post(server.port, PATHS.csid, body, tls));
    await waitFor('the queue full', () => server.load.waiting === WAITING);
    const extra = open({ 'content-length': Buffer.byteLength(body) });
    extra.req.end(body);
    const refused = await extra.reply;
    expect(refused.status).toBe(429);
    expect(refused.body).toBe(BUSY);
    expect(refused.headers['retry-after']).toBe('1');

    // The stalled clients finish: every waiting request gets its turn and its answer.
    for (const s of stalled) s.req.end(body.slice(10));
    for (const r of [...(await Promise.all(stalled.map((s) => s.reply))), ...(await Promise.all(queued))]) {
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body).response.allowed).toBe(true);
    }
    expect(server.load).toEqual({ reviewing: 0, bytes: 0, waiting: 0 });
  });

  it('a client that goes away while waiting gives its place up', async () => {
    const body = JSON.stringify(review('ClusterSPIFFEID', 'CREATE', { metadata: { name: 'x' }, spec: { spiffeIDTemplate: 'spiffe://example.org/x' } }));
    const stalled = Array.from({ length: REVIEWS }, () => open({ 'content-length': Buffer.byteLength(body) }));
    for (const s of stalled) s.req.write(body.slice(0, 10));
    await waitFor('every turn taken', () => server.load.reviewing === REVIEWS);
    const leaving = open({ 'content-length': Buffer.byteLength(body) });
    leaving.reply.catch(() => undefined);
    leaving.req.end(body);
    await waitFor('it waits', () => server.load.waiting === 1);
    leaving.req.destroy();
    await waitFor('its place is given up', () => server.load.waiting === 0);
    for (const s of stalled) s.req.end(body.slice(10));
    await Promise.all(stalled.map((s) => s.reply));
    expect(server.load).toEqual({ reviewing: 0, bytes: 0, waiting: 0 });
  });
});

/** A valid ClusterSPIFFEID review padded with spaces to `bytes` bytes. */
function paddedReview(bytes: number): string {
  const body = JSON.stringify(review('ClusterSPIFFEID', 'CREATE', { metadata: { name: 'x' }, spec: { spiffeIDTemplate: 'spiffe://example.org/x' } }));
  return body + ' '.repeat(bytes - Buffer.byteLength(body));
}

const KiB = 1024;

describe('the body bytes held at once are bounded', () => {
  let small: AdmissionServer;
  beforeAll(async () => {
    small = await serve({ limits: { bytes: 1024 * KiB, reviews: 4, waiting: 1 }, bodyDeadlineMs: 120_000 });
  });

  it('a body whose length does not fit in the bytes free waits, unread, for them; past the queue it is answered 429 before it is read', async () => {
    const held = paddedReview(700 * KiB);
    const first = openOn(small, { 'content-length': held.length });
    first.req.write(held.slice(0, 10));
    await waitFor('the first body holds its bytes', () => small.load.bytes === 700 * KiB);

    const next = paddedReview(500 * KiB);
    const waiting = openOn(small, { 'content-length': next.length });
    waiting.req.end(next);
    await waitFor('the second waits', () => small.load.waiting === 1);
    // Waiting, it holds nothing: its body is not read.
    expect(small.load).toEqual({ reviewing: 1, bytes: 700 * KiB, waiting: 1 });

    const refused = openOn(small, { 'content-length': next.length });
    refused.req.end(next);
    expect(await refused.reply).toMatchObject({ status: 429, body: 'too many admission requests at once (4 read and checked, holding at most 1048576 bytes, 1 waiting)\n', headers: { 'retry-after': '1' } });
    expect(small.load).toEqual({ reviewing: 1, bytes: 700 * KiB, waiting: 1 });

    first.req.end(held.slice(10));
    for (const r of await Promise.all([first.reply, waiting.reply])) {
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body).response.allowed).toBe(true);
    }
    expect(small.load).toEqual({ reviewing: 0, bytes: 0, waiting: 0 });
  });

  it('a body without a length is counted as it arrives: read whole while the bytes are free, answered 429 once it outgrows them', async () => {
    const chunked = openOn(small, { 'transfer-encoding': 'chunked' });
    chunked.req.end(paddedReview(600 * KiB));
    expect((await chunked.reply).status).toBe(200);

    const held = paddedReview(900 * KiB);
    const first = openOn(small, { 'content-length': held.length });
    first.req.write(held.slice(0, 10));
    await waitFor('the first body holds its bytes', () => small.load.bytes === 900 * KiB);
    const growing = openOn(small, { 'transfer-encoding': 'chunked' });
    growing.req.end(paddedReview(300 * KiB));
    expect(await growing.reply).toMatchObject({ status: 429, headers: { 'retry-after': '1' } });
    expect(small.load).toEqual({ reviewing: 1, bytes: 900 * KiB, waiting: 0 });

    first.req.end(held.slice(10));
    expect((await first.reply).status).toBe(200);
    expect(small.load).toEqual({ reviewing: 0, bytes: 0, waiting: 0 });
  });
});

describe('a body that does not arrive in time', () => {
  it('is answered 408, its connection closed, and its turn and bytes given to the next request', async () => {
    const slow = await serve({ limits: { bytes: 1024 * KiB, reviews: 1, waiting: 4 }, bodyDeadlineMs: 300 });
    const body = paddedReview(100 * KiB);
    const trickling = openOn(slow, { 'content-length': body.length });
    const closed = new Promise<void>((resolve) => trickling.req.on('socket', (socket) => socket.on('close', () => resolve())));
    trickling.req.write(body.slice(0, 10));
    await waitFor('it holds the only turn', () => slow.load.reviewing === 1);
    // The next request waits for that turn.
    const next = openOn(slow, { 'content-length': body.length });
    next.req.end(body);
    await waitFor('the next one waits', () => slow.load.waiting === 1);

    expect(await trickling.reply).toMatchObject({ status: 408, body: 'request body not received within 300 ms\n', headers: { connection: 'close' } });
    await closed;
    expect((await next.reply).status).toBe(200);
    expect(slow.load).toEqual({ reviewing: 0, bytes: 0, waiting: 0 });
  });
});
