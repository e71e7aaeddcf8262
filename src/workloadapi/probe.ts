import { connect, type PeerCertificate } from 'node:tls';
import { errorMessage } from '../api/errors.js';
import type { X509Context } from './context.js';
import { toPem } from './der.js';

interface ProbeTarget {
  host: string;
  port: number;
  /** The TLS server name the channel sends. */
  servername: string;
  /** The trust domain whose authorities verify the server. */
  trustDomain: string;
  /** The channel's own server check (the SPIFFE ID); its refusal is the answer. */
  checkServerIdentity: (host: string, cert: PeerCertificate) => Error | undefined;
  timeoutMs?: number;
}

/** Node's codes for a server certificate that does not verify against the CA given. */
const UNVERIFIED = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'INVALID_PURPOSE',
]);

/**
 * One TLS handshake with the SPIRE server, made as the gRPC channel makes
 * it (the same SVID, bundle, server name and SPIFFE ID check), to say why
 * the channel cannot connect: gRPC reports only that it could not. Resolves
 * with one line, or undefined when the handshake succeeds.
 */
export function probeServer(context: X509Context, target: ProbeTarget): Promise<string | undefined> {
  const svid = context.svids[0];
  const authorities = context.bundles.get(target.trustDomain) ?? [];
  if (!svid || authorities.length === 0) return Promise.resolve(undefined);
  const address = `${target.host}:${target.port}`;
  return new Promise((resolve) => {
    let refusal: string | undefined;
    const socket = connect({
      host: target.host,
      port: target.port,
      servername: target.servername,
      ca: toPem('CERTIFICATE', authorities.map((a) => a.der)),
      cert: toPem('CERTIFICATE', svid.certChain),
      key: toPem('PRIVATE KEY', [svid.privateKey]),
      ALPNProtocols: ['h2'],
      checkServerIdentity: (host, cert) => {
        const err = target.checkServerIdentity(host, cert);
        refusal = err?.message;
        return err;
      },
    });
    const finish = (why: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(() => finish(`no TLS handshake with ${address} within ${(target.timeoutMs ?? 5000) / 1000}s`), target.timeoutMs ?? 5000);
    // Under TLS 1.3 the server checks our certificate after our side of the handshake is done, and
    // refuses it with an alert that comes later; a gRPC server that accepts sends its HTTP/2
    // SETTINGS at once. So the first bytes from the server, not the handshake, mean success.
    socket.once('data', () => finish(undefined));
    socket.once('end', () => finish(`${address} closed the connection after the TLS handshake: it may not accept the SVID presented`));
    socket.once('error', (err: NodeJS.ErrnoException) => finish(refusal ?? describe(err, address, target.trustDomain)));
  });
}

function describe(err: NodeJS.ErrnoException, address: string, trustDomain: string): string {
  const code = err.code ?? '';
  if (code === 'ECONNREFUSED') return `connection refused by ${address}: is the SPIRE server running, and is this its bind_port?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host of ${address} cannot be resolved (${code})`;
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `${address} cannot be reached (${code})`;
  if (UNVERIFIED.has(code)) return `the server's certificate does not verify against the X.509 authorities of ${trustDomain} from the Workload API: ${err.message}`;
  // OpenSSL words an alert from the peer as "...:ssl/tls alert bad certificate:...".
  const alert = /alert ([a-z ]+?)(?::|$)/i.exec(err.message)?.[1];
  if (alert) return `the server refused the TLS handshake (alert "${alert}"): it did not accept the SVID presented`;
  if (code.startsWith('ERR_SSL_')) return `the TLS handshake with ${address} failed: ${err.message}`;
  return `${address}: ${errorMessage(err)}`;
}
