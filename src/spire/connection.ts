import * as grpc from '@grpc/grpc-js';
import type { EntryClient, EntryDefinition } from '../gen/spire/api/server/entry/v1/Entry.js';
import type { ListEntriesRequest } from '../gen/spire/api/server/entry/v1/ListEntriesRequest.js';
import type { ListEntriesResponse__Output as ListEntriesResponseOut } from '../gen/spire/api/server/entry/v1/ListEntriesResponse.js';
import type { TrustDomainClient, TrustDomainDefinition } from '../gen/spire/api/server/trustdomain/v1/TrustDomain.js';
import type { BundleClient, BundleDefinition } from '../gen/spire/api/server/bundle/v1/Bundle.js';
import type { SVIDClient, SVIDDefinition } from '../gen/spire/api/server/svid/v1/SVID.js';
import { listEntriesDecoder, loadSpireGrpc } from './proto.js';
import { releasedUnary, type RpcSettings, type UnaryApi, unaryApi } from './rpc.js';
import type { ResolvedTransport } from './transport.js';

/**
 * One gRPC channel to the SPIRE server and the four service stubs sharing
 * it. It counts the calls in flight, so that a retired connection (replaced
 * after a credentials renewal) closes only once its last call has finished.
 */
export class Connection {
  readonly entry: UnaryApi<EntryDefinition>;
  readonly trustDomain: UnaryApi<TrustDomainDefinition>;
  readonly bundle: UnaryApi<BundleDefinition>;
  readonly svid: UnaryApi<SVIDDefinition>;
  /** ListEntries, its pages decoded by listEntriesDecoder. */
  readonly listEntriesPage: (req: ListEntriesRequest) => Promise<ListEntriesResponseOut>;
  private readonly channel: grpc.Channel;
  private readonly clients: grpc.Client[];
  private active = 0;
  private retired = false;
  private closed = false;

  constructor(transport: ResolvedTransport, channelOptions: grpc.ChannelOptions, settings: Omit<RpcSettings, 'service' | 'track'>) {
    const { target, credentials } = transport;
    this.channel = new grpc.Channel(target, credentials, { ...channelOptions, ...transport.channelOptions });
    const pkg = loadSpireGrpc();
    const shared = { channelOverride: this.channel };
    const entry: EntryClient = new pkg.spire.api.server.entry.v1.Entry(target, credentials, shared);
    const trustDomain: TrustDomainClient = new pkg.spire.api.server.trustdomain.v1.TrustDomain(target, credentials, shared);
    const bundle: BundleClient = new pkg.spire.api.server.bundle.v1.Bundle(target, credentials, shared);
    const svid: SVIDClient = new pkg.spire.api.server.svid.v1.SVID(target, credentials, shared);
    this.clients = [entry, trustDomain, bundle, svid];
    const of = (service: string): RpcSettings => ({ ...settings, service, track: (p) => this.track(p) });
    this.entry = unaryApi<EntryDefinition>(entry, of('Entry'));
    this.trustDomain = unaryApi<TrustDomainDefinition>(trustDomain, of('TrustDomain'));
    this.bundle = unaryApi<BundleDefinition>(bundle, of('Bundle'));
    this.svid = unaryApi<SVIDDefinition>(svid, of('SVID'));
    const listEntries = pkg.spire.api.server.entry.v1.Entry.service.ListEntries;
    this.listEntriesPage = releasedUnary(entry, 'ListEntries', listEntries, listEntriesDecoder(), of('Entry'));
    if (transport.tcp) this.watch(transport, grpc.connectivityState.IDLE);
  }

  /** Tells the transport each failed and each successful connection of this channel, until it shuts down. */
  private watch(transport: ResolvedTransport, from: grpc.connectivityState): void {
    if (this.closed) return;
    // No deadline: a watcher holds no timer, and the channel's shutdown ends it.
    this.channel.watchConnectivityState(from, Infinity, () => {
      const now = this.channel.getConnectivityState(false);
      if (now === grpc.connectivityState.SHUTDOWN) return;
      if (now === grpc.connectivityState.TRANSIENT_FAILURE) transport.connectFailed();
      if (now === grpc.connectivityState.READY) transport.connected();
      this.watch(transport, now);
    });
  }

  /** Resolves true once the channel is connected, false when `deadline` comes first. */
  waitForReady(deadline: number): Promise<boolean> {
    return new Promise((resolve) => (this.clients[0] as grpc.Client).waitForReady(deadline, (err) => resolve(!err)));
  }

  /** Calls in flight now. */
  get inFlight(): number {
    return this.active;
  }

  private track<R>(call: Promise<R>): Promise<R> {
    this.active++;
    const done = () => {
      this.active--;
      if (this.retired && this.active === 0) this.close();
    };
    call.then(done, done);
    return call;
  }

  /** No new call comes: close once the calls in flight have finished (now, if none). */
  retire(): void {
    this.retired = true;
    if (this.active === 0) this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const c of this.clients) c.close();
    this.channel.close();
  }
}
