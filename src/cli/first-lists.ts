/**
 * When `run`'s informers make their first lists. In the SPIRE server's pod a
 * restarted container of ours leaves the whole pod, SPIRE included, out of
 * its Service until the kubelet has probed the new container's readiness
 * (which it does as soon as it sees the container running, within its 1 s
 * relist) and has written the pod's Ready status. The first lists of a large
 * cluster (megabytes the API server encodes and we decode, on the same few
 * cores) slowed that write and its delivery measurably
 * (docs/reliability.md), and nothing needs them that soon: the pods they
 * bring are registered moments later either way. So they wait for the probe
 * thread's first answer, then `settleMs` for the status write, and no
 * longer than `atMostMs` (a pod with no readiness probe, or run outside one).
 */
export const FIRST_LISTS_WAIT = { settleMs: 300, atMostMs: 1_000 };

const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** When the first lists may begin: undefined (at once) when no probe thread answers readiness. */
export function firstListsAfter(readinessAnswered: Promise<void> | undefined, wait = FIRST_LISTS_WAIT): Promise<void> | undefined {
  if (!readinessAnswered) return undefined;
  return Promise.race([readinessAnswered.then(() => after(wait.settleMs)), after(wait.atMostMs)]);
}
