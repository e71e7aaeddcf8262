/**
 * What one hostile or huge admission request may cost the webhook, over real
 * HTTPS: a body over the limit is answered 413 (not a connection reset), a
 * body of millions of tiny values is refused before it is parsed, at most
 * four requests are read and checked at once while the rest wait their turn,
 * and a flood beyond the queue is answered 429.
 */
import { request, type RequestOptions } from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdmissionServer, MAX_BODY_BYTES, MAX_BODY_VALUES, MAX_CONCURRENT_REVIEWS, MAX_WAITING_REVIEWS } from '../../src/webhook/server.js';
import { issueFileCert, PATHS, post, review, waitFor } from './helpers.js';

const NAME = 'webhook.test';
let server: AdmissionServer;
let tls: { ca: string; servername: string };

beforeAll(async () => {
  const cert = await issueFileCert(undefined, NAME);
  server = new AdmissionServer({ host: '127.0.0.1', port: 0, trustDomain: 'example.org', log: pino({ level: 'silent' }) });
  await server.install({ certPem: cert.crt, keyPem: cert.key, notAfter: new Date(Date.now() + 3600_000) });
  tls = { ca: cert.caPem, servername: NAME };
});

afterAll(async () => {
  await server?.close();
});

interface Reply {
  status: number;
  body: string;
}

/** A request whose body is written by the caller: `headers` decide between Content-Length and chunked. */
function open(headers: Record<string, string | number> = {}): { req: ClientRequest; reply: Promise<Reply> } {
  const opts: RequestOptions = { host: '127.0.0.1', port: server.port, path: PATHS.csid, method: 'POST', ca: tls.ca, servername: tls.servername, agent: false, headers: { 'content-type': 'application/json', ...headers } };
  let req!: ClientRequest;
  const reply = new Promise<Reply>((resolve, reject) => {
    req = request(opts, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  return { req, reply };
}

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
    expect(await reply).toEqual({ status: 413, body: `request body over ${MAX_BODY_BYTES} bytes: an AdmissionReview from the API server is smaller (it accepts objects up to 3 MiB)\n` });
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

describe(`at most ${MAX_CONCURRENT_REVIEWS} requests are read and checked at once; the rest wait, and a flood is refused`, () => {
  it('a stalled client holds one turn; the next request waits for it, and a full queue answers 429', { timeout: 60_000 }, async () => {
    const body = JSON.stringify(review('ClusterSPIFFEID', 'CREATE', { metadata: { name: 'x' }, spec: { spiffeIDTemplate: 'spiffe://example.org/x' } }));
    // Clients that send half a body and stop: each holds a turn.
    const stalled = Array.from({ length: MAX_CONCURRENT_REVIEWS }, () => open({ 'content-length': Buffer.byteLength(body) }));
    for (const s of stalled) s.req.write(body.slice(0, 10));
    await waitFor('every turn taken', () => server.load.reviewing === MAX_CONCURRENT_REVIEWS);

    const queued = Array.from({ length: MAX_WAITING_REVIEWS }, () => post(server.port, PATHS.csid, body, tls));
    await waitFor('the queue full', () => server.load.waiting === MAX_WAITING_REVIEWS);
    const refused = await post(server.port, PATHS.csid, body, tls);
    expect(refused.status).toBe(429);
    expect(refused.body).toBe(`too many admission requests at once (${MAX_CONCURRENT_REVIEWS} checked, ${MAX_WAITING_REVIEWS} waiting)\n`);

    // The stalled clients finish: every waiting request gets its turn and its answer.
    for (const s of stalled) s.req.end(body.slice(10));
    for (const r of [...(await Promise.all(stalled.map((s) => s.reply))), ...(await Promise.all(queued))]) {
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body).response.allowed).toBe(true);
    }
    expect(server.load).toEqual({ reviewing: 0, waiting: 0 });
  });

  it('a client that goes away while waiting gives its place up', async () => {
    const body = JSON.stringify(review('ClusterSPIFFEID', 'CREATE', { metadata: { name: 'x' }, spec: { spiffeIDTemplate: 'spiffe://example.org/x' } }));
    const stalled = Array.from({ length: MAX_CONCURRENT_REVIEWS }, () => open({ 'content-length': Buffer.byteLength(body) }));
    for (const s of stalled) s.req.write(body.slice(0, 10));
    await waitFor('every turn taken', () => server.load.reviewing === MAX_CONCURRENT_REVIEWS);
    const leaving = open({ 'content-length': Buffer.byteLength(body) });
    leaving.reply.catch(() => undefined);
    leaving.req.end(body);
    await waitFor('it waits', () => server.load.waiting === 1);
    leaving.req.destroy();
    await waitFor('its place is given up', () => server.load.waiting === 0);
    for (const s of stalled) s.req.end(body.slice(10));
    await Promise.all(stalled.map((s) => s.reply));
    expect(server.load).toEqual({ reviewing: 0, waiting: 0 });
  });
});
