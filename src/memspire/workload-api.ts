import { existsSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { ServiceDefinition } from '@grpc/proto-loader';
import type { SpiffeWorkloadAPIHandlers } from '../gen/SpiffeWorkloadAPI.js';
import type { X509SVIDRequest__Output } from '../gen/X509SVIDRequest.js';
import type { X509SVIDResponse } from '../gen/X509SVIDResponse.js';
import { formatSpiffeId, parseSpiffeId } from '../spiffe/index.js';
import { loadWorkloadDefinition, SECURITY_HEADER } from '../workloadapi/proto.js';
import { type CertificateAuthority, createCertificateAuthority } from './ca.js';
import { Code } from './status.js';
import { type IssuedSvid, issueSvid } from './tls.js';

/**
 * What the fake answers a FetchX509SVID with:
 * - `serve`: the SVID of the configured SPIFFE ID, and a new one on every
 *   open stream before the old expires;
 * - `no-identity`: PERMISSION_DENIED "no identity issued", as an agent
 *   answers a process no entry matches (open streams end with it too);
 * - `hang`: nothing, ever (the stream stays open);
 * - `expired-bundle`: a valid SVID with a bundle whose one authority expired;
 * - `foreign-trust-domain`: an SVID and bundle of another trust domain.
 */
type WorkloadApiMode = 'serve' | 'no-identity' | 'hang' | 'expired-bundle' | 'foreign-trust-domain';

export interface MemoryWorkloadApiOptions {
  /** Absolute path of the Unix socket to serve on (created, with its folder). */
  socketPath: string;
  /** The SPIRE server whose CA signs the SVIDs, in its trust domain (a MemorySpireServer). */
  spire: { readonly ca: CertificateAuthority; readonly trustDomain: string };
  /** The SPIFFE ID every caller is issued. */
  spiffeId: string;
  /** Lifetime of each SVID. Default 3600 s. */
  ttlSeconds?: number;
  /** The part of an SVID's lifetime after which the next one is pushed. Default 0.5: a SPIRE agent renews at half-life. */
  rotateAfter?: number;
  /** Default `serve`. */
  mode?: WorkloadApiMode;
  /** The trust domain of `foreign-trust-domain`. Default elsewhere.test. */
  foreignTrustDomain?: string;
}

type Stream = grpc.ServerWritableStream<X509SVIDRequest__Output, X509SVIDResponse>;

function concat(ders: readonly Buffer[]): Buffer {
  return Buffer.concat(ders.map((d) => Uint8Array.from(d)));
}

/**
 * A SPIRE agent's Workload API, as much of it as the controller uses:
 * FetchX509SVID on a Unix socket, issuing X.509 SVIDs from the in-memory
 * SPIRE server's CA for one SPIFFE ID, rotated before they expire, and the
 * faults a client must classify. It checks the `workload.spiffe.io` header
 * as an agent does; it attests nobody (every caller gets the one identity).
 * Other methods answer UNIMPLEMENTED.
 */
export class MemoryWorkloadApi {
  /** Every SVID issued, oldest first. */
  readonly issued: IssuedSvid[] = [];
  /** FetchX509SVID calls received, each with whether it carried the security header. */
  readonly calls: { at: number; header: boolean }[] = [];
  private server: grpc.Server | undefined;
  private readonly streams = new Set<Stream>();
  private current: IssuedSvid | undefined;
  private rotation: NodeJS.Timeout | undefined;
  private expiredCa: Promise<CertificateAuthority> | undefined;
  private foreign: Promise<{ ca: CertificateAuthority; svid: IssuedSvid }> | undefined;
  private modeNow: WorkloadApiMode;
  private readonly ttlSeconds: number;
  private readonly rotateAfter: number;

  private constructor(private readonly opts: MemoryWorkloadApiOptions) {
    this.modeNow = opts.mode ?? 'serve';
    this.ttlSeconds = opts.ttlSeconds ?? 3600;
    this.rotateAfter = opts.rotateAfter ?? 0.5;
  }

  static async start(opts: MemoryWorkloadApiOptions): Promise<MemoryWorkloadApi> {
    parseSpiffeId(opts.spiffeId);
    const api = new MemoryWorkloadApi(opts);
    await api.rotate();
    await api.resume();
    return api;
  }

  get socketPath(): string {
    return this.opts.socketPath;
  }

  get mode(): WorkloadApiMode {
    return this.modeNow;
  }

  /** Streams open now. */
  get openStreams(): number {
    return this.streams.size;
  }

  /** The SVID served now. */
  get svid(): IssuedSvid {
    return this.current as IssuedSvid;
  }

  /** Changes what calls are answered with; open streams get the new answer at once. */
  async setMode(mode: WorkloadApiMode): Promise<void> {
    this.modeNow = mode;
    for (const stream of this.streams) await this.answer(stream);
  }

  /** Issues a new SVID now and pushes it on every open stream (the agent's rotation, on demand). */
  async rotate(): Promise<IssuedSvid> {
    clearTimeout(this.rotation);
    const svid = await issueSvid(this.opts.spire.ca, formatSpiffeId(parseSpiffeId(this.opts.spiffeId)), this.ttlSeconds);
    this.issued.push(svid);
    this.current = svid;
    this.rotation = setTimeout(() => void this.rotate(), this.ttlSeconds * 1000 * this.rotateAfter);
    for (const stream of this.streams) await this.answer(stream);
    return svid;
  }

  /** Stops serving: open streams end (UNAVAILABLE on the client's side) and the socket goes; state is kept. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.streams.clear();
    if (server) server.forceShutdown();
    if (existsSync(this.opts.socketPath)) unlinkSync(this.opts.socketPath);
  }

  /** Serves again on the same socket (after `stop`). */
  async resume(): Promise<void> {
    if (this.server) return;
    const path = this.opts.socketPath;
    mkdirSync(dirname(path), { recursive: true });
    if (existsSync(path) && lstatSync(path).isSocket()) unlinkSync(path);
    const server = new grpc.Server();
    const handlers: Partial<SpiffeWorkloadAPIHandlers> = { FetchX509SVID: (stream) => void this.fetch(stream) };
    server.addService(loadWorkloadDefinition()['SpiffeWorkloadAPI'] as ServiceDefinition, handlers as grpc.UntypedServiceImplementation);
    await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${path}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
    this.server = server;
  }

  /** Stops for good, with the rotation timer. */
  async close(): Promise<void> {
    clearTimeout(this.rotation);
    await this.stop();
  }

  private async fetch(stream: Stream): Promise<void> {
    const header = stream.metadata.get(SECURITY_HEADER);
    const ok = header.length === 1 && header[0] === 'true';
    this.calls.push({ at: Date.now(), header: ok });
    if (!ok) {
      // The words of SPIRE's agent for a call without the header.
      stream.emit('error', { code: Code.INVALID_ARGUMENT, details: 'security header missing from request' });
      return;
    }
    this.streams.add(stream);
    stream.on('cancelled', () => this.streams.delete(stream));
    await this.answer(stream);
  }

  private async answer(stream: Stream): Promise<void> {
    if (this.modeNow === 'hang') return;
    if (this.modeNow === 'no-identity') {
      this.streams.delete(stream);
      stream.emit('error', { code: Code.PERMISSION_DENIED, details: 'no identity issued' });
      return;
    }
    const response = await this.response();
    if (this.streams.has(stream)) stream.write(response);
  }

  private async response(): Promise<X509SVIDResponse> {
    const spire = this.opts.spire;
    const svid = this.current as IssuedSvid;
    const of = (s: IssuedSvid, bundle: Buffer): X509SVIDResponse => ({
      svids: [{ spiffe_id: s.spiffeId, x509_svid: concat(s.certChain), x509_svid_key: s.privateKey, bundle, hint: '' }],
      crl: [],
      federated_bundles: {},
    });
    switch (this.modeNow) {
      case 'expired-bundle': {
        // A CA whose lifetime ended an hour ago.
        this.expiredCa ??= createCertificateAuthority(spire.trustDomain, 60, Date.now() - 3600_000);
        return of(svid, (await this.expiredCa).der);
      }
      case 'foreign-trust-domain': {
        this.foreign ??= (async () => {
          const td = this.opts.foreignTrustDomain ?? 'elsewhere.test';
          const ca = await createCertificateAuthority(td, 24 * 3600);
          return { ca, svid: await issueSvid(ca, formatSpiffeId({ trustDomain: td, path: parseSpiffeId(this.opts.spiffeId).path }), this.ttlSeconds) };
        })();
        const foreign = await this.foreign;
        return of(foreign.svid, foreign.ca.der);
      }
      default:
        return of(svid, spire.ca.der);
    }
  }
}
