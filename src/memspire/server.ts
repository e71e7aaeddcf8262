import { existsSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { ServiceDefinition } from '@grpc/proto-loader';
import { formatSpiffeId, parseSpiffeId, parseTrustDomain } from '../spiffe/index.js';
import { loadPackageDefinition } from '../spire/proto.js';
import type { Bundle, Entry, FederationRelationship } from '../spire/types.js';
import type { BundleHandlers } from '../gen/spire/api/server/bundle/v1/Bundle.js';
import type { EntryHandlers } from '../gen/spire/api/server/entry/v1/Entry.js';
import type { SVIDHandlers } from '../gen/spire/api/server/svid/v1/SVID.js';
import type { TrustDomainHandlers } from '../gen/spire/api/server/trustdomain/v1/TrustDomain.js';
import { bundleToProto, BundleStore } from './bundles.js';
import { type CertificateAuthority, createCertificateAuthority } from './ca.js';
import { type DroppableField, EntryStore, type StoredEntry, toProto } from './entries.js';
import { FaultInjector } from './faults.js';
import { RelationshipStore } from './federation.js';
import { Code, RpcFailure } from './status.js';
import { mintX509Svid } from './svid.js';
import { type Caller, callerOf, type IssuedSvid, issueSvid, serverCredentials } from './tls.js';
import { errorMessage } from '../api/errors.js';

export interface SpireSeed {
  entries?: Entry[];
  federatedBundles?: Bundle[];
  federationRelationships?: FederationRelationship[];
}

export interface MemorySpireServerOptions {
  /** Absolute path of the Unix socket to serve on (created, with its folder). */
  socketPath: string;
  /** Default example.org. */
  trustDomain?: string;
  /** Lifetime of the self-signed CA. Default 24 h. */
  caTtlSeconds?: number;
  /** X509-SVID lifetime when a mint asks for ttl <= 0. Default 3600 s, as SPIRE. */
  defaultX509SvidTtlSeconds?: number;
  seed?: SpireSeed;
  /** Behave like an older SPIRE that does not store these entry fields. */
  droppedFields?: readonly DroppableField[];
  /** Behave like SPIRE before 1.8.0: every created entry gets a generated ID, whatever ID the request asked for. */
  ignoreRequestedEntryIds?: boolean;
  /**
   * More sockets serving the same server (one state), so that a test can
   * tell its clients apart: each call and deletion records its socket.
   */
  extraSocketPaths?: readonly string[];
  /** Told about every call answered without an error, with its decoded request and response (the benchmark's observer). */
  onCall?: (method: string, request: unknown, response: unknown) => void;
  /** Also serve on a TCP address with TLS and SPIRE's authorization, as a SPIRE server's agent-facing port. */
  tcp?: MemorySpireTcpOptions;
}

interface MemorySpireTcpOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port, read back as `tcpAddress`. */
  port?: number;
  /** Callers allowed every admin RPC by their SPIFFE ID, as SPIRE's `admin_ids`. */
  adminIds?: readonly string[];
  /** The SPIFFE ID of the certificate the listener presents. Default spiffe://<trust domain>/spire/server, as SPIRE's. */
  serverId?: string;
}

interface CallRecord {
  method: string;
  /** Items in a batch request, or the page size of a list. */
  items: number;
  /** The request's output mask, when it has one. */
  outputMask?: Record<string, boolean>;
  /** A list's page token ('' for the first page). */
  pageToken?: string;
  /** The socket the call came in on; `tcp:<host>:<port>` for the TCP listener. */
  socket: string;
  /** On the TCP listener: the caller's SPIFFE ID and certificate serial, when it presented a certificate the CA verifies. */
  caller?: Caller;
  /** Refused by authorization (PERMISSION_DENIED) before it ran. */
  denied?: true;
  /** When the call arrived (Date.now()), before any injected delay. */
  at: number;
}

/** An entry a BatchDeleteEntry removed, as it was, and the socket the call came in on. */
interface DeletionRecord {
  socket: string;
  entry: StoredEntry;
}

const PKG = {
  entry: 'spire.api.server.entry.v1.Entry',
  trustDomain: 'spire.api.server.trustdomain.v1.TrustDomain',
  bundle: 'spire.api.server.bundle.v1.Bundle',
  svid: 'spire.api.server.svid.v1.SVID',
} as const;

/** The key of the TCP listener among the servers (the others are keyed by socket path, always absolute). */
const TCP_KEY = 'tcp';

function bracketed(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The methods served here that SPIRE's default policy allows any caller (allow_any); every other one needs a local or admin caller. */
const ALLOWED_ANY = new Set(['GetBundle']);

let fullMethods: Map<string, string> | undefined;

/** "/<service>/<method>" of a method served here, as SPIRE names it in an authorization denial. */
function fullMethod(method: string): string {
  if (!fullMethods) {
    fullMethods = new Map();
    const def = loadPackageDefinition();
    for (const service of Object.values(PKG)) {
      for (const [name, m] of Object.entries(def[service] as ServiceDefinition)) fullMethods.set(name, m.path);
    }
  }
  return fullMethods.get(method) ?? method;
}

interface TcpListener {
  readonly host: string;
  port: number;
  readonly adminIds: ReadonlySet<string>;
  readonly svid: IssuedSvid;
  readonly credentials: grpc.ServerCredentials;
}

/**
 * A SPIRE-compatible server held in memory, serving the Entry, TrustDomain,
 * Bundle and SVID APIs over a Unix socket with the behaviour of
 * docs/spire-semantics.md. The demo, the benchmark and the tests use it.
 */
export class MemorySpireServer {
  readonly trustDomain: string;
  readonly entries: EntryStore;
  readonly bundles: BundleStore;
  readonly relationships: RelationshipStore;
  readonly faults = new FaultInjector();
  readonly calls: CallRecord[] = [];
  readonly deletions: DeletionRecord[] = [];
  private readonly servers = new Map<string, grpc.Server>();
  private readonly socketPaths: readonly string[];
  private readonly onCall: MemorySpireServerOptions['onCall'];
  private tcp: TcpListener | undefined;

  private constructor(
    readonly socketPath: string,
    trustDomain: string,
    readonly ca: CertificateAuthority,
    private readonly defaultSvidTtl: number,
    opts: Pick<MemorySpireServerOptions, 'droppedFields' | 'ignoreRequestedEntryIds' | 'extraSocketPaths' | 'onCall'>,
  ) {
    this.onCall = opts.onCall;
    this.socketPaths = [socketPath, ...(opts.extraSocketPaths ?? [])];
    this.trustDomain = trustDomain;
    this.bundles = new BundleStore(trustDomain);
    this.bundles.put({
      trustDomain,
      x509Authorities: [ca.der],
      jwtAuthorities: [],
      refreshHint: '0',
      sequenceNumber: '1',
    });
    this.entries = new EntryStore({
      trustDomain,
      hasBundle: (td) => this.bundles.has(td),
      droppedFields: opts.droppedFields ?? [],
      ignoreRequestedIds: opts.ignoreRequestedEntryIds ?? false,
    });
    this.relationships = new RelationshipStore(trustDomain, this.bundles);
  }

  static async start(opts: MemorySpireServerOptions): Promise<MemorySpireServer> {
    const td = parseTrustDomain(opts.trustDomain ?? 'example.org');
    const ca = await createCertificateAuthority(td, opts.caTtlSeconds ?? 24 * 3600);
    const s = new MemorySpireServer(opts.socketPath, td, ca, opts.defaultX509SvidTtlSeconds ?? 3600, opts);
    if (opts.seed) s.seed(opts.seed);
    if (opts.tcp) {
      const serverId = formatSpiffeId(parseSpiffeId(opts.tcp.serverId ?? `spiffe://${td}/spire/server`));
      const svid = await issueSvid(ca, serverId, opts.caTtlSeconds ?? 24 * 3600);
      const host = opts.tcp.host ?? '127.0.0.1';
      s.tcp = {
        host,
        port: opts.tcp.port ?? 0,
        adminIds: new Set((opts.tcp.adminIds ?? []).map((id) => formatSpiffeId(parseSpiffeId(id)))),
        svid,
        credentials: serverCredentials(ca, svid),
      };
    }
    await s.listen();
    return s;
  }

  get address(): string {
    return `unix://${this.socketPath}`;
  }

  /** "host:port" of the TCP listener, once bound; undefined without one. */
  get tcpAddress(): string | undefined {
    return this.tcp && this.tcp.port !== 0 ? `${bracketed(this.tcp.host)}:${this.tcp.port}` : undefined;
  }

  /** The SVID the TCP listener presents. */
  get serverSvid(): IssuedSvid | undefined {
    return this.tcp?.svid;
  }

  /** Loads state through the same code paths as the RPCs; throws on the first rejected item. */
  seed(seed: SpireSeed): void {
    const def = loadPackageDefinition();
    // Round-trip through the wire codec so seeds look exactly like decoded requests.
    const decode = <T>(service: string, method: string, req: object): T => {
      const m = (def[service] as ServiceDefinition)[method];
      if (!m) throw new Error(`unknown method ${service}/${method}`);
      return m.requestDeserialize(m.requestSerialize(req)) as T;
    };
    for (const b of seed.federatedBundles ?? []) {
      const req = decode<{ bundle: Parameters<BundleStore['set']>[0][] }>(PKG.bundle, 'BatchSetFederatedBundle', { bundle: [b] });
      const r = this.bundles.set(req.bundle[0] as Parameters<BundleStore['set']>[0], null);
      if (r.status.code !== Code.OK) throw new Error(`seed bundle ${b.trust_domain}: ${r.status.message}`);
    }
    for (const fr of seed.federationRelationships ?? []) {
      const req = decode<{ federation_relationships: Parameters<RelationshipStore['create']>[0][] }>(
        PKG.trustDomain,
        'BatchCreateFederationRelationship',
        { federation_relationships: [fr] },
      );
      const r = this.relationships.create(req.federation_relationships[0] as Parameters<RelationshipStore['create']>[0], null);
      if (r.status.code !== Code.OK) throw new Error(`seed federation relationship ${fr.trust_domain}: ${r.status.message}`);
    }
    for (const [i, e] of (seed.entries ?? []).entries()) {
      const req = decode<{ entries: Parameters<EntryStore['create']>[0][] }>(PKG.entry, 'BatchCreateEntry', { entries: [e] });
      const r = this.entries.create(req.entries[0] as Parameters<EntryStore['create']>[0], null, true);
      if (r.status.code !== Code.OK) throw new Error(`seed entry #${i} (${e.id ?? 'no id'}): ${r.status.message}`);
    }
  }

  private async listen(): Promise<void> {
    for (const path of this.socketPaths) {
      if (this.servers.has(path)) continue;
      mkdirSync(dirname(path), { recursive: true });
      // A socket left by a crashed process would make bind fail; a real SPIRE server clears it too.
      if (existsSync(path) && lstatSync(path).isSocket()) unlinkSync(path);
      const { server } = await this.bind(`unix://${path}`, grpc.ServerCredentials.createInsecure());
      this.addServices(server, path);
      this.servers.set(path, server);
    }
    const tcp = this.tcp;
    if (tcp && !this.servers.has(TCP_KEY)) {
      // The first bind takes a free port when asked for 0; a resume binds the same one again.
      const { server, port } = await this.bind(`${bracketed(tcp.host)}:${tcp.port}`, tcp.credentials);
      tcp.port = port;
      this.addServices(server, `tcp:${this.tcpAddress}`);
      this.servers.set(TCP_KEY, server);
    }
  }

  private async bind(target: string, credentials: grpc.ServerCredentials): Promise<{ server: grpc.Server; port: number }> {
    const server = new grpc.Server();
    const port = await new Promise<number>((resolve, reject) => {
      server.bindAsync(target, credentials, (err, bound) => (err ? reject(err) : resolve(bound)));
    });
    return { server, port };
  }

  /** The four services, their calls recorded under `socket` (a socket path, or tcp:<host>:<port>). */
  private addServices(server: grpc.Server, socket: string): void {
    // Methods left out of the handler maps answer UNIMPLEMENTED, as grpc-js does by default.
    const def = loadPackageDefinition();
    server.addService(def[PKG.entry] as ServiceDefinition, this.entryHandlers(socket) as grpc.UntypedServiceImplementation);
    server.addService(def[PKG.trustDomain] as ServiceDefinition, this.trustDomainHandlers(socket) as grpc.UntypedServiceImplementation);
    server.addService(def[PKG.bundle] as ServiceDefinition, this.bundleHandlers(socket) as grpc.UntypedServiceImplementation);
    server.addService(def[PKG.svid] as ServiceDefinition, this.svidHandlers(socket) as grpc.UntypedServiceImplementation);
  }

  /** Stops serving; state is kept, so `start()` afterwards behaves like a SPIRE restart. */
  async stop(): Promise<void> {
    const servers = [...this.servers];
    this.servers.clear();
    if (servers.length === 0) return;
    this.faults.release();
    await Promise.all(
      servers.map(async ([path, server]) => {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            server.forceShutdown();
            resolve();
          }, 2000);
          server.tryShutdown(() => {
            clearTimeout(timer);
            resolve();
          });
        });
        if (path !== TCP_KEY && existsSync(path)) unlinkSync(path);
      }),
    );
  }

  /** Serves again on the same socket with the same state. */
  async resume(): Promise<void> {
    await this.listen();
  }

  /** Drops every open connection at once, as a crashing server would, then serves again. */
  async dropConnections(): Promise<void> {
    for (const server of this.servers.values()) server.forceShutdown();
    this.servers.clear();
    await this.listen();
  }

  private unary<Req, Res>(socket: string, method: string, items: (req: Req) => number, handler: (req: Req) => Res | Promise<Res>): grpc.handleUnaryCall<Req, Res> {
    const tcp = socket.startsWith('tcp:');
    return (call, callback) => {
      const req = call.request as { output_mask?: Record<string, boolean> | null; page_token?: string };
      const mask = req.output_mask;
      const caller = tcp ? callerOf(call) : undefined;
      const denied = tcp && !this.authorized(method, caller);
      this.calls.push({
        method,
        items: items(call.request),
        outputMask: mask ?? undefined,
        pageToken: req.page_token,
        socket,
        caller,
        denied: denied || undefined,
        at: Date.now(),
      });
      if (denied) {
        callback({ code: Code.PERMISSION_DENIED, details: `authorization denied for method ${fullMethod(method)}` });
        return;
      }
      void (async () => {
        try {
          const injected = await this.faults.before(method);
          if (injected) {
            callback({ code: injected.code, details: injected.message });
            return;
          }
          const response = await handler(call.request);
          this.onCall?.(method, call.request, response);
          callback(null, response);
        } catch (err) {
          if (err instanceof RpcFailure) callback({ code: err.code, details: err.message });
          else callback({ code: Code.INTERNAL, details: errorMessage(err) });
        }
      })();
    };
  }

  /**
   * SPIRE's default policy on its TCP port, where no caller is local: a
   * method open to any caller, or an admin caller, whose SVID's SPIFFE ID is
   * in `adminIds` or is the SPIFFE ID of an entry marked admin. (A linear
   * scan of the entries: the TCP listener serves tests, not the benchmark.)
   */
  private authorized(method: string, caller: Caller | undefined): boolean {
    if (ALLOWED_ANY.has(method)) return true;
    if (!caller || !this.tcp) return false;
    if (this.tcp.adminIds.has(caller.spiffeId)) return true;
    return this.entries.all().some((e) => e.admin && formatSpiffeId(e.spiffeId) === caller.spiffeId);
  }

  private entryHandlers(socket: string): Partial<EntryHandlers> {
    const none = () => 0;
    return {
      ListEntries: this.unary(socket, 'ListEntries', (r) => r.page_size, (req) => {
        const page = this.entries.list(req.filter, req.page_size, req.page_token);
        return { entries: page.items.map((e) => toProto(e, req.output_mask)), next_page_token: page.nextPageToken };
      }),
      CountEntries: this.unary(socket, 'CountEntries', none, (req) => ({ count: this.entries.count(req.filter) })),
      GetEntry: this.unary(socket, 'GetEntry', none, (req) => {
        if (req.id === '') throw new RpcFailure(Code.INVALID_ARGUMENT, 'missing ID');
        const e = this.entries.get(req.id);
        if (!e) throw new RpcFailure(Code.NOT_FOUND, 'entry not found');
        return toProto(e, req.output_mask);
      }),
      BatchCreateEntry: this.unary(socket, 'BatchCreateEntry', (r) => r.entries.length, (req) => ({
        results: req.entries.map((e) => this.entries.create(e, req.output_mask)),
      })),
      BatchUpdateEntry: this.unary(socket, 'BatchUpdateEntry', (r) => r.entries.length, (req) => ({
        results: req.entries.map((e) => this.entries.update(e, req.input_mask, req.output_mask)),
      })),
      BatchDeleteEntry: this.unary(socket, 'BatchDeleteEntry', (r) => r.ids.length, (req) => ({
        results: req.ids.map((id) => {
          const entry = this.entries.get(id);
          const status = this.entries.delete(id);
          if (entry && status.code === Code.OK) this.deletions.push({ socket, entry });
          return { status, id };
        }),
      })),
    };
  }

  private trustDomainHandlers(socket: string): Partial<TrustDomainHandlers> {
    return {
      ListFederationRelationships: this.unary(socket, 'ListFederationRelationships', (r) => r.page_size, (req) => {
        const page = this.relationships.list(req.page_size, req.page_token, req.output_mask);
        return { federation_relationships: page.items, next_page_token: page.nextPageToken };
      }),
      GetFederationRelationship: this.unary(socket, 'GetFederationRelationship', () => 0, (req) => {
        let td: string;
        try {
          td = parseTrustDomain(req.trust_domain);
        } catch (err) {
          throw new RpcFailure(Code.INVALID_ARGUMENT, `failed to parse trust domain: ${errorMessage(err)}`);
        }
        const fr = this.relationships.get(td, req.output_mask);
        if (!fr) throw new RpcFailure(Code.NOT_FOUND, 'federation relationship does not exist');
        return fr;
      }),
      BatchCreateFederationRelationship: this.unary(socket, 'BatchCreateFederationRelationship', (r) => r.federation_relationships.length, (req) => ({
        results: req.federation_relationships.map((fr) => {
          const r = this.relationships.create(fr, req.output_mask);
          return { status: r.status, federation_relationship: r.relationship ?? null };
        }),
      })),
      BatchUpdateFederationRelationship: this.unary(socket, 'BatchUpdateFederationRelationship', (r) => r.federation_relationships.length, (req) => ({
        results: req.federation_relationships.map((fr) => {
          const r = this.relationships.update(fr, req.input_mask, req.output_mask);
          return { status: r.status, federation_relationship: r.relationship ?? null };
        }),
      })),
      BatchDeleteFederationRelationship: this.unary(socket, 'BatchDeleteFederationRelationship', (r) => r.trust_domains.length, (req) => ({
        results: req.trust_domains.map((td) => this.relationships.delete(td)),
      })),
    };
  }

  private bundleHandlers(socket: string): Partial<BundleHandlers> {
    return {
      GetBundle: this.unary(socket, 'GetBundle', () => 0, (req) => {
        const own = this.bundles.get(this.trustDomain);
        if (!own) throw new RpcFailure(Code.NOT_FOUND, 'bundle not found');
        return bundleToProto(own, req.output_mask);
      }),
      ListFederatedBundles: this.unary(socket, 'ListFederatedBundles', (r) => r.page_size, (req) => {
        const page = this.bundles.listFederated(req.page_size, req.page_token);
        return { bundles: page.items.map((b) => bundleToProto(b, req.output_mask)), next_page_token: page.nextPageToken };
      }),
      BatchDeleteFederatedBundle: this.unary(socket, 'BatchDeleteFederatedBundle', (r) => r.trust_domains.length, (req) => ({
        results: req.trust_domains.map((td) => this.bundles.deleteFederated(td, req.mode, this.entries)),
      })),
      BatchSetFederatedBundle: this.unary(socket, 'BatchSetFederatedBundle', (r) => r.bundle.length, (req) => ({
        results: req.bundle.map((b) => {
          const r = this.bundles.set(b, req.output_mask);
          return { status: r.status, bundle: r.bundle ?? null };
        }),
      })),
    };
  }

  private svidHandlers(socket: string): Partial<SVIDHandlers> {
    return {
      MintX509SVID: this.unary(socket, 'MintX509SVID', () => 1, async (req) => {
        const svid = await mintX509Svid(this.ca, this.trustDomain, req.csr, req.ttl, this.defaultSvidTtl);
        return {
          svid: {
            id: { trust_domain: svid.trustDomain, path: svid.path },
            cert_chain: [svid.certDer],
            expires_at: String(svid.expiresAt),
            hint: '',
          },
        };
      }),
    };
  }
}
