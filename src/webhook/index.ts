/**
 * The admission webhook: an HTTPS server validating ClusterSPIFFEID,
 * ClusterStaticEntry and ClusterFederatedTrustDomain objects, and its serving
 * certificate, minted from SPIRE (default) or read from files (certDir).
 * It runs on every replica, leader or not: a standby's certificate must stay
 * fresh too, since the Service sends admission calls to any ready pod (#450).
 */
import type { KubeConfig } from '../kube/connection.js';
import type { Logger } from 'pino';
import type { ControllerConfig } from '../api/index.js';
import type { SpireClient } from '../spire/index.js';
import type { OptionalAccessReporter } from '../kube/forbidden.js';
import { FileCertificateSource } from './file-cert.js';
import { SvidCertificateManager } from './manager.js';
import { AdmissionServer } from './server.js';
import { DEFAULT_SVID_TTL_SECONDS } from './svid-cert.js';
import type { ServingCertificate } from './types.js';

export interface WebhookOptions {
  config: ControllerConfig;
  kc: KubeConfig;
  spire: SpireClient;
  log: Logger;
  /** Test hook: the clock rotation decisions use. Default Date.now. */
  now?: () => number;
  /** Test hook: between regular checks (VWC, caBundle, cert files). Default 5000 ms, as upstream. */
  checkIntervalMs?: number;
  /** Test hook: the X509-SVID TTL requested; 0 asks for the SPIRE server's default. Default 24 h, as upstream. */
  svidTtlSeconds?: number;
  /** Told when the ValidatingWebhookConfiguration may not be read (403), and when it may again. */
  onOptionalAccess?: OptionalAccessReporter;
}

export interface Webhook {
  /** The port listened on (the configured one until the first certificate). */
  readonly port: number;
  /** For the readiness probe: ready once a valid certificate is served, or while no ValidatingWebhookConfiguration routes requests here. */
  ready(): { ok: boolean; detail?: string };
  certificate(): { pem: string; notAfter: Date } | undefined;
  close(): Promise<void>;
}

/**
 * Starts the certificate source and returns at once; the listener opens when
 * the first certificate is in hand, and `ready()` says why it has not yet.
 */
export async function startWebhook(opts: WebhookOptions): Promise<Webhook> {
  const { config, log } = opts;
  const now = opts.now ?? Date.now;
  const checkIntervalMs = opts.checkIntervalMs ?? 5000;
  const wlog = log.child({ component: 'webhook' });
  const server = new AdmissionServer({ host: config.webhook.host, port: config.webhook.port, trustDomain: config.trustDomain, tls: config.webhookTls, log: wlog });
  const install = (cert: ServingCertificate) => server.install(cert);

  const source = config.webhook.certDir
    ? new FileCertificateSource({ dir: config.webhook.certDir, log: wlog, checkIntervalMs, install })
    : new SvidCertificateManager({
        trustDomain: config.trustDomain,
        vwcName: config.validatingWebhookConfigurationName,
        kc: opts.kc,
        spire: opts.spire,
        log: wlog,
        now,
        checkIntervalMs,
        ttlSeconds: opts.svidTtlSeconds ?? DEFAULT_SVID_TTL_SECONDS,
        install,
        onOptionalAccess: opts.onOptionalAccess,
      });
  source.start();
  wlog.info({ mode: config.webhook.certDir ? `files in ${config.webhook.certDir}` : 'SPIRE-minted X509-SVID' }, 'webhook starting');

  return {
    get port() {
      return server.port;
    },
    ready() {
      // Without the ValidatingWebhookConfiguration no API server sends a request, so there is
      // nothing to be ready for; and a sidecar's readiness is the SPIRE server pod's, which an
      // install without the webhook must not keep out of its Service. The warning is logged.
      if (source instanceof SvidCertificateManager && source.configurationMissing) return { ok: true };
      // Denied reading it: whether anything calls the webhook is unknown, and a sidecar that is not
      // ready takes the SPIRE server out of its Service. The log and the metric say what is missing.
      if (source instanceof SvidCertificateManager && source.accessDenied && !server.current) return { ok: true };
      const cert = server.current;
      const problem = source.problem;
      if (!cert) return { ok: false, detail: `no serving certificate yet: ${problem ?? 'waiting for the first certificate'}` };
      if (!server.listening) return { ok: false, detail: server.listenProblem ?? 'the admission webhook is not listening yet' };
      // Expired is as good as absent: the API server refuses the handshake.
      if (now() >= cert.notAfter.getTime()) return { ok: false, detail: `serving certificate expired at ${cert.notAfter.toISOString()}: ${problem ?? 'no renewed certificate yet'}` };
      // Listening is not enough: the API server verifies the certificate with the caBundle, written after the first mint.
      if (source instanceof SvidCertificateManager && !source.caBundleWritten && !source.patchDenied) {
        return { ok: false, detail: `the caBundle of ValidatingWebhookConfiguration "${config.validatingWebhookConfigurationName}" does not carry SPIRE's authorities yet: ${problem ?? 'writing it'}` };
      }
      return { ok: true };
    },
    certificate() {
      const cert = server.current;
      return cert ? { pem: cert.certPem, notAfter: cert.notAfter } : undefined;
    },
    async close() {
      source.close();
      await server.close();
    },
  };
}
