import { isIP } from 'node:net';
import type { PeerCertificate } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { formatSpiffeId, parseSpiffeId } from '../spiffe/index.js';
import { x509 } from '../x509/index.js';
import { errorMessage } from '../api/errors.js';
import type { X509Context } from './context.js';
import { toPem } from './der.js';
import { probeServer } from './probe.js';
import type { X509Source } from './source.js';

type CertificateProvider = grpc.experimental.CertificateProvider;
type CaListener = Parameters<CertificateProvider['addCaCertificateListener']>[0];
type IdentityListener = Parameters<CertificateProvider['addIdentityCertificateListener']>[0];

/**
 * gRPC's certificate provider over an X509Source: the identity is the
 * source's SVID (chain and key, PEM), the CA the X.509 authorities of one
 * trust domain (the SPIRE server's). A listener added is told the current
 * value at once (grpc-js adds its listener when a connection is first made),
 * and every later one; null when the source dropped an expired context.
 */
class SourceCertificates implements CertificateProvider {
  private readonly ca = new Set<CaListener>();
  private readonly identity = new Set<IdentityListener>();

  constructor(
    private readonly source: X509Source,
    private readonly caTrustDomain: string,
  ) {}

  /** Tells every listener the context's certificates (null: none usable). */
  update(context: X509Context | undefined): void {
    const ca = this.caUpdate(context);
    const identity = this.identityUpdate(context);
    for (const l of this.ca) l(ca);
    for (const l of this.identity) l(identity);
  }

  private caUpdate(context: X509Context | undefined) {
    const authorities = context?.bundles.get(this.caTrustDomain);
    if (!authorities || authorities.length === 0) return null;
    return { caCertificate: Buffer.from(toPem('CERTIFICATE', authorities.map((a) => a.der))) };
  }

  private identityUpdate(context: X509Context | undefined) {
    const svid = context?.svids[0];
    if (!svid) return null;
    return { certificate: Buffer.from(toPem('CERTIFICATE', svid.certChain)), privateKey: Buffer.from(toPem('PRIVATE KEY', [svid.privateKey])) };
  }

  addCaCertificateListener(listener: CaListener): void {
    this.ca.add(listener);
    const context = this.source.current();
    if (context) listener(this.caUpdate(context));
  }

  removeCaCertificateListener(listener: CaListener): void {
    this.ca.delete(listener);
  }

  addIdentityCertificateListener(listener: IdentityListener): void {
    this.identity.add(listener);
    const context = this.source.current();
    if (context) listener(this.identityUpdate(context));
  }

  removeIdentityCertificateListener(listener: IdentityListener): void {
    this.identity.delete(listener);
  }
}

/** The URI SANs of a certificate the TLS stack presents. */
function uriSans(cert: PeerCertificate): string[] {
  const parsed = new x509.X509Certificate(cert.raw);
  return (parsed.getExtension(x509.SubjectAlternativeNameExtension)?.names.items ?? []).filter((n) => n.type === 'url').map((n) => n.value);
}

interface SpiffeMtlsCredentials {
  /** Channel credentials that present the source's SVID and trust only the SPIRE server's SPIFFE ID. */
  readonly credentials: grpc.ChannelCredentials;
  readonly serverId: string;
  /** The check every handshake makes of the server's certificate (Node's checkServerIdentity). */
  readonly checkServerIdentity: (host: string, cert: PeerCertificate) => Error | undefined;
  /** Why the last handshake refused the server, in one line; undefined after one succeeded. */
  lastRefusal(): string | undefined;
  /** Told after new certificates are in place for new connections (each SVID or bundle rotation). */
  onRenewal(listener: () => void): () => void;
  close(): void;
}

/**
 * SPIFFE mTLS credentials for the SPIRE server, following the source's
 * rotations: each new connection presents the newest SVID and verifies the
 * server against the newest bundle of the server's trust domain. The server
 * is authenticated only as `serverId`: Node's TLS verifies its chain against
 * that bundle (no system CA, no other trust domain), and the leaf must carry
 * exactly one URI SAN, equal to `serverId`. The host name is never checked:
 * a SPIFFE ID, not a DNS name, is what SPIRE's certificate asserts.
 */
function spiffeMtlsCredentials(source: X509Source, serverId: string): SpiffeMtlsCredentials {
  const id = parseSpiffeId(serverId);
  if (id.trustDomain !== source.trustDomain) {
    throw new Error(`spireServerID ${serverId} is not in trust domain ${source.trustDomain}: the SPIRE server's SPIFFE ID is in its own trust domain`);
  }
  const expected = formatSpiffeId(id);
  const certificates = new SourceCertificates(source, id.trustDomain);
  const renewalListeners = new Set<() => void>();
  let refusal: string | undefined;
  const unsubscribe = source.onUpdate((context) => {
    // Certificates first, so a connection a renewal listener opens uses the new ones.
    certificates.update(context);
    for (const l of renewalListeners) l();
  });
  const checkServerIdentity = (_host: string, cert: PeerCertificate): Error | undefined => {
    let presented: string[];
    try {
      presented = uriSans(cert);
    } catch (err) {
      refusal = `the SPIRE server's certificate cannot be read: ${errorMessage(err)}`;
      return new Error(refusal);
    }
    if (presented.length === 1 && presented[0] === expected) {
      refusal = undefined;
      return undefined;
    }
    const what = presented.length === 0 ? 'a certificate with no SPIFFE ID' : presented.join(', ');
    refusal = `the server presented ${what}, not ${expected} (spireServerID): it is not the SPIRE server this controller is configured for`;
    return new Error(refusal);
  };
  const credentials = grpc.experimental.createCertificateProviderChannelCredentials(certificates, certificates, { checkServerIdentity });
  return {
    credentials,
    serverId: expected,
    checkServerIdentity,
    lastRefusal: () => refusal,
    onRenewal(listener) {
      renewalListeners.add(listener);
      return () => renewalListeners.delete(listener);
    },
    close: unsubscribe,
  };
}

/** A TCP transport for SpireClient (src/spire/'s SpireTcpTransport): the SPIRE server's address over SPIFFE mTLS. */
interface SpiffeTcpTransport {
  readonly address: string;
  readonly security: string;
  readonly credentials: grpc.ChannelCredentials;
  readonly channelOptions: grpc.ChannelOptions;
  onRenewal(listener: () => void): () => void;
  diagnose(): string | undefined;
  probe(): Promise<string | undefined>;
  connected(): void;
}

/** Splits "host:port" ("[::1]:8081" for IPv6); throws when either part is missing or the port is not one. */
function parseServerAddress(address: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d+)$/.exec(address);
  const host = m?.[1] ?? m?.[2];
  const port = Number(m?.[3]);
  if (!host || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`spireServerAddress "${address}" must be host:port, e.g. spire-server.spire-server:8081 ([addr]:port for IPv6)`);
  }
  return { host, port };
}

/**
 * What SpireClient's `transport` option takes to reach the SPIRE server's
 * TCP port (`spireServerAddress`) with the source's SVID. `diagnose` says
 * why calls may fail: the Workload API's problem first (no SVID, no bundle),
 * then the last refused handshake.
 */
export function spiffeTransport(source: X509Source, opts: { address: string; serverId?: string }): SpiffeTcpTransport & { mtls: SpiffeMtlsCredentials } {
  const { host, port } = parseServerAddress(opts.address);
  const mtls = spiffeMtlsCredentials(source, opts.serverId ?? `spiffe://${source.trustDomain}/spire/server`);
  const servername = isIP(host) ? source.trustDomain : host;
  // What the last probe of a client that could not connect found, until a channel connects: kept here, where every client of the transport, and the controller's condition, see it.
  let probed: string | undefined;
  return {
    address: opts.address,
    security: 'SPIFFE mTLS',
    credentials: mtls.credentials,
    // TLS sends the host as the server name, which may not be an IP address (RFC 6066; Node warns):
    // for an IP, the trust domain's name goes instead. SPIRE ignores it either way.
    channelOptions: servername !== host ? { 'grpc.ssl_target_name_override': servername } : {},
    onRenewal: (listener) => mtls.onRenewal(listener),
    diagnose: () => {
      if (!source.current()) return `no SVID to present: ${source.problem?.message ?? `none yet from the SPIRE agent at ${source.socketPath}`}`;
      return mtls.lastRefusal() ?? probed;
    },
    probe: async () => {
      const context = source.current();
      if (!context) return undefined; // diagnose says so already
      probed = await probeServer(context, { host, port, servername, trustDomain: source.trustDomain, checkServerIdentity: mtls.checkServerIdentity });
      return probed;
    },
    connected: () => {
      probed = undefined;
    },
    mtls,
  };
}
