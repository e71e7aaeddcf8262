import type { Logger } from 'pino';
import type { ControllerConfig } from '../api/index.js';
import { controllerSpiffeId } from '../entries/index.js';
import { spiffeTransport, type WorkloadApiProblem, X509Source } from '../workloadapi/index.js';
import type { Check } from './health.js';
import type { ControllerMetrics } from './metrics.js';

/** A problem logged again only after this long, while it lasts unchanged (retries go on meanwhile, with backoff). */
const REPEAT_PROBLEM_MS = 5 * 60_000;

/**
 * The controller's identity in the standalone layout (`spireServerAddress`
 * set): its X.509 SVID, streamed from the SPIRE agent's Workload API, and the
 * SPIFFE mTLS transport to the SPIRE server's TCP port built on it. One per
 * process, shared by its SPIRE clients (the reconcile's and the webhook's),
 * so one stream follows the rotations for all of them. Says what goes wrong,
 * one line per problem, and as the `spire-identity` condition.
 */
export class SpireIdentity {
  readonly source: X509Source;
  readonly transport: ReturnType<typeof spiffeTransport>;
  private readonly unsubscribe: (() => void)[] = [];

  private constructor(config: ControllerConfig, log: Logger | undefined, metrics: ControllerMetrics | undefined) {
    this.source = new X509Source({
      // '' as unset: the source reads these with ??, falling back to the environment and the default ID.
      socket: config.workloadAPISocketPath || undefined,
      trustDomain: config.trustDomain,
      preferredId: controllerSpiffeId(config.trustDomain, config.clusterName),
    });
    this.transport = spiffeTransport(this.source, { address: config.spireServerAddress, serverId: config.spireServerID || undefined });
    let logged: { message: string; at: number } | undefined;
    this.unsubscribe.push(
      this.source.onProblem((problem: WorkloadApiProblem | undefined) => {
        if (problem) metrics?.workloadApiProblem(problem.cause);
        if (!problem) {
          if (logged) log?.info(`the SPIRE agent at ${this.source.socketPath} answers again`);
          logged = undefined;
          return;
        }
        if (logged?.message === problem.message && problem.at - logged.at < REPEAT_PROBLEM_MS) return;
        logged = { message: problem.message, at: problem.at };
        log?.warn({ cause: problem.cause }, problem.message);
      }),
      this.source.onUpdate((context) => {
        const svid = context?.svids[0];
        metrics?.setSvidExpiry(svid ? svid.notAfter.getTime() / 1000 : 0);
        if (svid) log?.info({ spiffeId: svid.spiffeId, serial: svid.serialNumber, notAfter: svid.notAfter.toISOString() }, 'X.509 SVID from the SPIRE agent');
      }),
    );
  }

  /** The identity a config asks for: none beside the admin socket (the sidecar layout). */
  static for(config: ControllerConfig, opts: { log?: Logger; metrics?: ControllerMetrics } = {}): SpireIdentity | undefined {
    return config.spireServerAddress ? new SpireIdentity(config, opts.log, opts.metrics) : undefined;
  }

  /** Whether the controller holds a usable SVID, and if not, why (the source's problem, which names the fix). */
  condition(): Check {
    return {
      name: 'spire-identity',
      check: () => {
        const svid = this.source.svid();
        if (svid) return { ok: true, detail: `${svid.spiffeId} until ${svid.notAfter.toISOString()}` };
        return { ok: false, detail: this.source.problem?.message ?? `no X.509 SVID yet from the SPIRE agent at ${this.source.socketPath}` };
      },
    };
  }

  /**
   * Whether the SPIRE server's TCP port is known to answer this identity:
   * fails with why while calls cannot get through (no SVID to present, the
   * connection refused, a server presenting another SPIFFE ID or a chain the
   * bundle does not verify, our SVID refused); passes otherwise.
   */
  serverCondition(): Check {
    return {
      name: 'spire-server',
      check: () => {
        const why = this.transport.diagnose();
        return why ? { ok: false, detail: `${this.transport.address}: ${why}` } : { ok: true, detail: `${this.transport.address} (SPIFFE mTLS)` };
      },
    };
  }

  close(): void {
    for (const u of this.unsubscribe) u();
    this.transport.mtls.close();
    this.source.close();
  }
}
