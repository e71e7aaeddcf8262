import * as grpc from '@grpc/grpc-js';
import { abortReason, type BatchOutcome, type ItemStatus, itemStatus, runBatches } from './batch.js';
import { Connection } from './connection.js';
import { SpireConnectError } from './errors.js';
import type { RpcObserver } from './rpc.js';
import { type ResolvedTransport, resolveTransport, type SpireTcpTransport } from './transport.js';
import type {
  BundleMask,
  BundleOut,
  Entry,
  EntryFilter,
  EntryMask,
  EntryOut,
  FederationRelationship,
  FederationRelationshipMask,
  FederationRelationshipOut,
} from './types.js';

interface BatchSizes {
  listEntriesPage: number;
  createEntries: number;
  updateEntries: number;
  deleteEntries: number;
  listRelationshipsPage: number;
  createRelationships: number;
  updateRelationships: number;
  deleteRelationships: number;
  listBundlesPage: number;
  /** Write batches in flight at once. SPIRE handles each item on its own, so batches are independent. */
  writeConcurrency: number;
}

/**
 * spire-controller-manager's sizes, except writes: 200 entries per create or
 * update call rather than its 50 (its source says "TODO: optimize"). SPIRE
 * sets no limit on a batch, and 200 entries are about 80 KB, far under gRPC's
 * message limit. Pushing 100,000 entries through the bench's socket took
 * 3.3-4.4 s in batches of 50, 2.0-2.5 s in batches of 100 to 300, and longer
 * again at 500; list pages of 1,000 were no faster than 200.
 */
const DEFAULT_BATCH_SIZES: BatchSizes = {
  listEntriesPage: 200,
  createEntries: 200,
  updateEntries: 200,
  deleteEntries: 200,
  listRelationshipsPage: 200,
  createRelationships: 50,
  updateRelationships: 50,
  deleteRelationships: 200,
  listBundlesPage: 200,
  writeConcurrency: 4,
};

interface SpireClientOptions {
  /** `unix:///path` or an absolute path. Default /spire-server/api.sock (unless `transport` is given). */
  socket?: string;
  /** The SPIRE server's TCP port instead of its admin socket (see SpireTcpTransport). */
  transport?: SpireTcpTransport;
  /** Deadline of every RPC. Default 30 s. */
  rpcTimeoutMs?: number;
  /** Largest response accepted. Default 16 MiB (gRPC's own default is 4 MiB). */
  maxReceiveMessageBytes?: number;
  batchSizes?: Partial<BatchSizes>;
  /** Called after every RPC with its name, gRPC code name and duration in seconds. */
  observe?: RpcObserver;
}

/**
 * Asked right before every write batch (entries and federation
 * relationships): a reason means no write may be sent now. Live mode's
 * leader election answers it from the clock, so a leader whose process was
 * stopped past its renew deadline sends nothing more when it runs again,
 * before any timer of its own has fired.
 */
type WriteGate = () => string | undefined;

interface EntryItemResult {
  status: ItemStatus;
  /** The stored entry on success; for a similar-entry ALREADY_EXISTS, the existing one. */
  entry: EntryOut | null;
}

interface DeleteEntryResult {
  status: ItemStatus;
  id: string;
}

interface RelationshipItemResult {
  status: ItemStatus;
  relationship: FederationRelationshipOut | null;
}

interface DeleteRelationshipResult {
  status: ItemStatus;
  trustDomain: string;
}

interface ListOptions {
  filter?: EntryFilter;
  outputMask?: EntryMask;
  /** Overrides the configured page size; <= 0 asks the server for everything at once. */
  pageSize?: number;
}

interface MintedX509Svid {
  spiffeId: string;
  certChain: Buffer[];
  expiresAt: number;
}

/**
 * The pages of a SPIRE List call, the one paging loop: until the server
 * returns an empty token, or an empty page (spire-semantics §1.4) unless
 * `emptyPageEnds` is false. Only non-empty pages are yielded.
 */
async function* pages<T>(page: (token: string) => Promise<{ items: T[]; next: string }>, emptyPageEnds = true): AsyncGenerator<T[]> {
  let token = '';
  for (;;) {
    const { items, next } = await page(token);
    if (items.length > 0) yield items;
    if (next === '' || (emptyPageEnds && items.length === 0)) return;
    token = next;
  }
}

async function collect<T>(pages: AsyncIterable<T[]>): Promise<T[]> {
  const all: T[] = [];
  for await (const page of pages) all.push(...page);
  return all;
}

/**
 * Typed clients for the SPIRE server APIs the controller uses, sharing one
 * channel: over the server's Unix socket (the admin socket), or over its TCP
 * port with the credentials of a transport. Over TCP, each renewal of the
 * credentials moves new calls to a fresh channel and closes the old one
 * once its calls are done.
 */
export class SpireClient {
  /** The admin socket's path; '' over TCP (see `where`). */
  readonly socketPath: string;
  /** Where the server is, for messages: the socket path, or "host:port (SPIFFE mTLS)". */
  readonly where: string;
  /** "host:port" over TCP; undefined over the admin socket. */
  readonly tcpAddress: string | undefined;
  readonly batchSizes: BatchSizes;
  private readonly transport: ResolvedTransport;
  private readonly newConnection: () => Connection;
  private connection: Connection;
  private readonly stopRenewals: () => void;
  private opened = 1;
  private gate: WriteGate | undefined;

  /** Installs the check every write batch must pass first (see WriteGate); undefined removes it. */
  gateWrites(gate: WriteGate | undefined): void {
    this.gate = gate;
  }

  // Asked before each write batch: the gate first, then the caller's signal.
  private halt(signal?: AbortSignal): () => string | undefined {
    return () => this.gate?.() ?? (signal?.aborted ? abortReason(signal) : undefined);
  }

  constructor(opts: SpireClientOptions = {}) {
    this.transport = resolveTransport(opts, () => grpc.credentials.createInsecure());
    this.socketPath = this.transport.socketPath;
    this.where = this.transport.where;
    this.tcpAddress = this.transport.tcp?.address;
    this.batchSizes = { ...DEFAULT_BATCH_SIZES, ...opts.batchSizes };
    const channelOptions: grpc.ChannelOptions = {
      'grpc.max_receive_message_length': opts.maxReceiveMessageBytes ?? 16 * 1024 * 1024,
      // Reconnect quickly after a SPIRE restart; the socket is local, so retrying is cheap.
      'grpc.initial_reconnect_backoff_ms': 200,
      'grpc.max_reconnect_backoff_ms': 5000,
      // Each channel its own connections: grpc-js's global subchannel pool may hand channels of
      // equal target, options and credentials one connection, and a renewal's fresh channel must
      // not reuse the connection made with the old certificate.
      'grpc.use_local_subchannel_pool': 1,
    };
    const settings = {
      where: this.where,
      diagnose: () => this.transport.diagnose(),
      deadlineMs: opts.rpcTimeoutMs ?? 30_000,
      waitForReady: true,
      observe: opts.observe,
    };
    this.newConnection = () => new Connection(this.transport, channelOptions, settings);
    this.connection = this.newConnection();
    this.stopRenewals = this.transport.tcp?.onRenewal?.(() => this.renew()) ?? (() => undefined);
  }

  /** Why the server may not answer right now, when that can be told without a call (no socket file, no SVID to present, a refused handshake). */
  diagnose(): string | undefined {
    return this.transport.diagnose();
  }

  /** Channels opened so far: 1, plus one per renewal of the credentials. */
  get connections(): number {
    return this.opened;
  }

  /** New calls go to a fresh channel; the old one closes once its calls are done. */
  private renew(): void {
    const old = this.connection;
    this.connection = this.newConnection();
    this.opened++;
    old.retire();
  }

  private get entry() {
    return this.connection.entry;
  }
  private get trustDomain() {
    return this.connection.trustDomain;
  }
  private get bundle() {
    return this.connection.bundle;
  }
  private get svidApi() {
    return this.connection.svid;
  }
  private get listEntriesPage() {
    return this.connection.listEntriesPage;
  }

  /**
   * Resolves once the server accepts a connection (over TCP: a completed
   * mTLS handshake). At start-up the SPIRE server (a sibling container) may
   * not be up yet: wait, don't crash. An aborted `signal` (SIGTERM while
   * waiting) rejects with its reason within one 2 s round.
   */
  async waitUntilReady(opts: { timeoutMs?: number; onWaiting?: (waitedMs: number) => void; signal?: AbortSignal } = {}): Promise<void> {
    const started = Date.now();
    const timeoutMs = opts.timeoutMs ?? 60_000;
    for (;;) {
      opts.signal?.throwIfAborted();
      const left = timeoutMs - (Date.now() - started);
      if (left <= 0) throw new SpireConnectError(this.where, Date.now() - started, this.transport.diagnose() ?? this.silence());
      if (await this.connection.waitForReady(Date.now() + Math.min(left, 2000))) return;
      opts.onWaiting?.(Date.now() - started);
    }
  }

  /** What a server that does not answer is, when the transport cannot say more. */
  private silence(): string {
    return this.transport.tcp ? 'no connection could be made (is the SPIRE server running, and its port reachable?)' : 'the socket exists but the server does not answer';
  }

  close(): void {
    this.stopRenewals();
    this.connection.close();
  }

  // ---- Entry ----

  /** Yields the entries a page at a time (spire-semantics §1.4). */
  entryPages(opts: ListOptions = {}): AsyncGenerator<EntryOut[]> {
    return pages(async (token) => {
      const { entries, next } = await this.entryPage(token, opts);
      return { items: entries, next };
    });
  }

  /**
   * One page of the entries after `token` ('' the first), and the token of
   * the next ('' after the last). SPIRE's tokens are row IDs: a token stays
   * valid across writes, and a walk resumed from it later lists the rows
   * after it as they are then (spire-semantics §1.4).
   */
  async entryPage(token: string, opts: ListOptions = {}): Promise<{ entries: EntryOut[]; next: string }> {
    const res = await this.listEntriesPage({
      page_size: opts.pageSize ?? this.batchSizes.listEntriesPage,
      page_token: token,
      filter: opts.filter,
      output_mask: opts.outputMask,
    });
    return { entries: res.entries, next: res.next_page_token };
  }

  listEntries(opts: ListOptions = {}): Promise<EntryOut[]> {
    return collect(this.entryPages(opts));
  }

  getEntry(id: string, outputMask?: EntryMask): Promise<EntryOut> {
    return this.entry.GetEntry({ id, output_mask: outputMask });
  }

  async countEntries(filter?: EntryFilter): Promise<number> {
    const res = await this.entry.CountEntries({ filter });
    return res.count;
  }

  createEntries(entries: readonly Entry[], opts: { outputMask?: EntryMask; signal?: AbortSignal; onBatchDone?: (items: number) => void } = {}): Promise<BatchOutcome<EntryItemResult>> {
    return runBatches(
      entries,
      this.batchSizes.createEntries,
      async (chunk) => {
        const res = await this.entry.BatchCreateEntry({ entries: chunk, output_mask: opts.outputMask });
        return res.results.map((r) => ({ status: itemStatus(r.status), entry: r.entry }));
      },
      (_e, status) => ({ status, entry: null }),
      this.halt(opts.signal),
      this.batchSizes.writeConcurrency,
      opts.onBatchDone,
    );
  }

  /** Without an input mask every field is replaced, as spire-controller-manager updates. */
  updateEntries(
    entries: readonly Entry[],
    opts: { inputMask?: EntryMask; outputMask?: EntryMask; signal?: AbortSignal; onBatchDone?: (items: number) => void } = {},
  ): Promise<BatchOutcome<EntryItemResult>> {
    return runBatches(
      entries,
      this.batchSizes.updateEntries,
      async (chunk) => {
        const res = await this.entry.BatchUpdateEntry({
          entries: chunk,
          input_mask: opts.inputMask,
          output_mask: opts.outputMask,
        });
        return res.results.map((r) => ({ status: itemStatus(r.status), entry: r.entry }));
      },
      (_e, status) => ({ status, entry: null }),
      this.halt(opts.signal),
      this.batchSizes.writeConcurrency,
      opts.onBatchDone,
    );
  }

  deleteEntries(ids: readonly string[], opts: { signal?: AbortSignal; onBatchDone?: (items: number) => void } = {}): Promise<BatchOutcome<DeleteEntryResult>> {
    return runBatches(
      ids,
      this.batchSizes.deleteEntries,
      async (chunk) => {
        const res = await this.entry.BatchDeleteEntry({ ids: chunk });
        return res.results.map((r) => ({ status: itemStatus(r.status), id: r.id }));
      },
      (id, status) => ({ status, id }),
      this.halt(opts.signal),
      this.batchSizes.writeConcurrency,
      opts.onBatchDone,
    );
  }

  // ---- TrustDomain (federation relationships) ----

  listFederationRelationships(opts: { outputMask?: FederationRelationshipMask } = {}): Promise<FederationRelationshipOut[]> {
    return collect(
      pages(async (token) => {
        const res = await this.trustDomain.ListFederationRelationships({
          page_size: this.batchSizes.listRelationshipsPage,
          page_token: token,
          output_mask: opts.outputMask,
        });
        return { items: res.federation_relationships, next: res.next_page_token };
      }),
    );
  }

  createFederationRelationships(frs: readonly FederationRelationship[]): Promise<BatchOutcome<RelationshipItemResult>> {
    return runBatches(
      frs,
      this.batchSizes.createRelationships,
      async (chunk) => {
        const res = await this.trustDomain.BatchCreateFederationRelationship({ federation_relationships: chunk });
        return res.results.map((r) => ({ status: itemStatus(r.status), relationship: r.federation_relationship }));
      },
      (_fr, status) => ({ status, relationship: null }),
      this.halt(),
    );
  }

  updateFederationRelationships(
    frs: readonly FederationRelationship[],
    opts: { inputMask?: FederationRelationshipMask } = {},
  ): Promise<BatchOutcome<RelationshipItemResult>> {
    return runBatches(
      frs,
      this.batchSizes.updateRelationships,
      async (chunk) => {
        const res = await this.trustDomain.BatchUpdateFederationRelationship({
          federation_relationships: chunk,
          input_mask: opts.inputMask,
        });
        return res.results.map((r) => ({ status: itemStatus(r.status), relationship: r.federation_relationship }));
      },
      (_fr, status) => ({ status, relationship: null }),
      this.halt(),
    );
  }

  deleteFederationRelationships(trustDomains: readonly string[]): Promise<BatchOutcome<DeleteRelationshipResult>> {
    return runBatches(
      trustDomains,
      this.batchSizes.deleteRelationships,
      async (chunk) => {
        const res = await this.trustDomain.BatchDeleteFederationRelationship({ trust_domains: chunk });
        return res.results.map((r) => ({ status: itemStatus(r.status), trustDomain: r.trust_domain }));
      },
      (trustDomain, status) => ({ status, trustDomain }),
      this.halt(),
    );
  }

  // ---- Bundle ----

  getBundle(outputMask?: BundleMask): Promise<BundleOut> {
    return this.bundle.GetBundle({ output_mask: outputMask });
  }

  listFederatedBundles(): Promise<BundleOut[]> {
    // A page may be empty yet carry a token (the own bundle is dropped after the read): go on.
    return collect(
      pages(async (token) => {
        const res = await this.bundle.ListFederatedBundles({ page_size: this.batchSizes.listBundlesPage, page_token: token });
        return { items: res.bundles, next: res.next_page_token };
      }, false),
    );
  }

  // ---- SVID ----

  async mintX509Svid(csrDer: Uint8Array, ttlSeconds = 0): Promise<MintedX509Svid> {
    const res = await this.svidApi.MintX509SVID({ csr: Buffer.from(csrDer), ttl: ttlSeconds });
    const svid = res.svid;
    if (!svid || !svid.id) throw new Error(`SPIRE SVID.MintX509SVID on ${this.where} returned no SVID`);
    return {
      spiffeId: `spiffe://${svid.id.trust_domain}${svid.id.path}`,
      certChain: svid.cert_chain,
      expiresAt: Number(svid.expires_at),
    };
  }
}
