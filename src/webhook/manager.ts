/**
 * SPIRE mode: one loop that reads the ValidatingWebhookConfiguration, mints
 * the serving certificate when it is missing, half-way through its life,
 * expired or naming the wrong DNS names, and keeps the configuration's
 * caBundles equal to SPIRE's trust bundle. Every replica runs it: each serves
 * its own certificate, and the caBundle patches are idempotent.
 */
import type { KubeConfig } from '../kube/connection.js';
import type { Logger } from 'pino';
import { errorMessage } from '../api/index.js';
import type { SpireClient } from '../spire/index.js';
import { Backoff } from '../net/backoff.js';
import { isForbidden, type OptionalAccessReporter } from '../kube/forbidden.js';
import { fetchAuthoritiesPem, syncCaBundle } from './cabundle.js';
import { type MintedCertificate, mintReason, mintServingCertificate, rotationTime } from './svid-cert.js';
import type { ServingCertificate } from './types.js';
import { getWebhookConfiguration, serviceDnsNames } from './vwc.js';

interface SvidCertificateManagerOptions {
  trustDomain: string;
  vwcName: string;
  kc: KubeConfig;
  spire: SpireClient;
  log: Logger;
  now: () => number;
  /** Between checks when all is well (upstream: 5 s). */
  checkIntervalMs: number;
  ttlSeconds: number;
  install(cert: ServingCertificate): Promise<void>;
  /** Told when the ValidatingWebhookConfiguration may not be read (403), and when it may again. */
  onOptionalAccess?: OptionalAccessReporter;
}

export class SvidCertificateManager {
  private minted: MintedCertificate | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly backoff = new Backoff(1000, 60_000);
  private problem_: string | undefined = 'the first check has not finished';
  private configurationMissing_ = false;
  private accessDenied_ = false;
  private caBundleWritten_ = false;
  private patchDenied_ = false;

  constructor(private readonly o: SvidCertificateManagerOptions) {}

  /** The last check found no ValidatingWebhookConfiguration: no API server calls the webhook then. */
  get configurationMissing(): boolean {
    return this.configurationMissing_;
  }

  /**
   * The last check was denied reading the ValidatingWebhookConfiguration (403): its
   * services' DNS names, and whether any API server calls the webhook, are unknown.
   * Readiness does not wait for that: it is the SPIRE server pod's readiness.
   */
  get accessDenied(): boolean {
    return this.accessDenied_;
  }

  /**
   * The configuration's caBundles carry SPIRE's authorities, as of the last check:
   * until then the API server cannot verify the certificate served, so a webhook
   * that is listening is not yet one it can call.
   */
  get caBundleWritten(): boolean {
    return this.caBundleWritten_;
  }

  /** The caBundle patch was refused (403): the webhook cannot become callable; readiness does not wait for it. */
  get patchDenied(): boolean {
    return this.patchDenied_;
  }

  /** Why there is no current certificate (or why the last check failed); undefined when all is well. */
  get problem(): string | undefined {
    return this.problem_;
  }

  start(): void {
    this.schedule(0);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.run(), ms);
  }

  private setProblem(problem: string | undefined): void {
    if (problem === this.problem_) return;
    this.problem_ = problem;
    if (problem !== undefined) this.o.log.warn({ reason: problem }, 'webhook serving certificate cannot be minted');
  }

  private async run(): Promise<void> {
    let next: number;
    try {
      next = await this.check();
      this.backoff.reset();
    } catch (err) {
      next = this.backoff.next();
      this.problem_ = errorMessage(err);
      this.o.log.warn({ err, retryInMs: next }, 'webhook certificate check failed');
    }
    this.schedule(next);
  }

  /** One pass; returns when the next one is due. */
  private async check(): Promise<number> {
    const { o } = this;
    let vwc: Awaited<ReturnType<typeof getWebhookConfiguration>>;
    try {
      vwc = await getWebhookConfiguration(o.kc, o.vwcName);
    } catch (err) {
      if (!isForbidden(err)) throw err;
      if (!this.accessDenied_) o.onOptionalAccess?.('validatingwebhookconfigurations', { message: err.message });
      this.accessDenied_ = true;
      this.setProblem(`ValidatingWebhookConfiguration "${o.vwcName}" may not be read (403 Forbidden): grant get and patch on it by that name (validatingWebhookConfigurationName); until then no serving certificate is minted`);
      return this.minted ? o.checkIntervalMs : Math.min(o.checkIntervalMs, 1000);
    }
    if (this.accessDenied_) o.onOptionalAccess?.('validatingwebhookconfigurations', undefined);
    this.accessDenied_ = false;
    if (this.closed) return 0;
    this.configurationMissing_ = !vwc;
    if (!vwc) {
      // Upstream skips minting too: the DNS names come from the configuration's services,
      // and a certificate without them would be rejected by the API server anyway.
      this.setProblem(`ValidatingWebhookConfiguration "${o.vwcName}" not found; the serving certificate is minted once it exists, with its services' DNS names`);
      // Poll faster until the first certificate, so readiness follows its creation closely (#389).
      return this.minted ? o.checkIntervalMs : Math.min(o.checkIntervalMs, 1000);
    }
    const dnsNames = serviceDnsNames(vwc);
    const reason = mintReason(this.minted, dnsNames, o.now());
    if (reason) {
      if (dnsNames.length === 0) o.log.warn({ name: o.vwcName }, 'no webhook in the ValidatingWebhookConfiguration has a service: the certificate gets no DNS names');
      const cert = await mintServingCertificate(o.spire, o.trustDomain, dnsNames, o.ttlSeconds, o.now());
      if (this.closed) return 0;
      await o.install(cert);
      this.minted = cert;
      o.log.info({ reason, spiffeId: cert.spiffeId, dnsNames, notAfter: cert.notAfter.toISOString() }, 'webhook serving certificate minted');
    }
    // After a mint too: the API server must trust the new certificate's issuer before it can call us.
    const authorities = await fetchAuthoritiesPem(o.spire);
    try {
      await syncCaBundle(o.kc, vwc, authorities, o.log);
    } catch (err) {
      if (!isForbidden(err)) throw err;
      this.patchDenied_ = true;
      this.setProblem(`ValidatingWebhookConfiguration "${o.vwcName}" may not be patched (403 Forbidden): grant patch on it by that name (validatingWebhookConfigurationName); until then the API server cannot verify the webhook's certificate`);
      return o.checkIntervalMs;
    }
    this.patchDenied_ = false;
    this.caBundleWritten_ = true;
    this.setProblem(undefined);
    // Wake for the half-life point if it comes before the next regular check (short-lived SVIDs).
    const untilRotation = rotationTime(this.minted!) - o.now();
    return Math.max(Math.min(o.checkIntervalMs, 1000), Math.min(o.checkIntervalMs, untilRotation));
  }
}
