import { existsSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { ServiceDefinition } from '@grpc/proto-loader';
import { parseTrustDomain } from '../spiffe/index.js';
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
}

export interface CallRecord {
  method: string;
  /** Items in a batch request, or the page size of a list. */
  items: number;
  /** The request's output mask, when it has one. */
  outputMask?: Record<string, boolean>;
  /** A list's page token ('' for the first page). */
  pageToken?: string;
  /** The socket the call came in on. */
  socket: string;
  /** When the call arrived (Date.now()), before any injected delay. */
  at: number;
}

/** An entry a BatchDeleteEntry removed, as it was, and the socket the call came in on. */
export interface DeletionRecord {
  socket: string;
  entry: StoredEntry;
}

const PKG = {
  entry: 'spire.api.server.entry.v1.Entry',
  trustDomain: 'spire.api.server.trustdomain.v1.TrustDomain',
  bundle: 'spire.api.server.bundle.v1.Bundle',
  svid: 'spire.api.server.svid.v1.SVID',
} as const;

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
    await s.listen();
    return s;
  }

  get address(): string {
    return `unix://${this.socketPath}`;
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
    for (const path of this.socketPaths) if (!this.servers.has(path)) this.servers.set(path, await this.serve(path));
  }

  private async serve(socketPath: string): Promise<grpc.Server> {
    mkdirSync(dirname(socketPath), { recursive: true });
    // A socket left by a crashed process would make bind fail; a real SPIRE server clears it too.
    if (existsSync(socketPath) && lstatSync(socketPath).isSocket()) unlinkSync(socketPath);
    // Methods left out of the handler maps answer UNIMPLEMENTED, as grpc-js does by default.
    const server = new grpc.Server();
    const def = loadPackageDefinition();
    server.addService(def[PKG.entry] as ServiceDefinition, this.entryHandlers(socketPath) as grpc.UntypedServiceImplementation);
    server.addService(def[PKG.trustDomain] as ServiceDefinition, this.trustDomainHandlers(socketPath) as grpc.UntypedServiceImplementation);
    server.addService(def[PKG.bundle] as ServiceDefinition, this.bundleHandlers(socketPath) as grpc.UntypedServiceImplementation);
    server.addService(def[PKG.svid] as ServiceDefinition, this.svidHandlers(socketPath) as grpc.UntypedServiceImplementation);
    await new Promise<void>((resolve, reject) => {
      server.bindAsync(`unix://${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve()));
    });
    return server;
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
        if (existsSync(path)) unlinkSync(path);
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
    return (call, callback) => {
      const req = call.request as { output_mask?: Record<string, boolean> | null; page_token?: string };
      const mask = req.output_mask;
      this.calls.push({ method, items: items(call.request), ...(mask ? { outputMask: mask } : {}), ...(req.page_token !== undefined ? { pageToken: req.page_token } : {}), socket, at: Date.now() });
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
