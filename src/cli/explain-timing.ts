import type { Pod } from '../api/index.js';

/**
 * When a pod's entry was created, and how long after the pod could first
 * have had it, from what SPIRE and the API server record. `explain` is a
 * process of its own: it knows none of the live controller's events, only
 * timestamps kept with the objects, each in whole seconds and each by its
 * own server's clock:
 * - the entry's `created_at` (SPIRE's clock; SPIRE 1.6.3 and later report
 *   it, older servers answer 0). An update keeps it and records no time of
 *   its own, only a revision number above 0;
 * - the pod's creationTimestamp and its PodScheduled condition's
 *   lastTransitionTime (the API server's clock). The scheduler sets the
 *   condition when it binds the pod to a node; for a pod created with its
 *   node already named, the kubelet sets it when it first reports the pod,
 *   which can be after the entry was made;
 * - the declaring ClusterSPIFFEID's creationTimestamp.
 * Label and Namespace changes, which can select a pod, carry no time, so a
 * pod selected by one became registrable later than this can see, and the
 * interval here is then longer than the wait. The live controller times
 * the wait itself, from the event (spire_reconciler_registration_seconds).
 */
export interface EntryTiming {
  /** The entry's ID. */
  id: string;
  /** When SPIRE created the entry (ISO 8601); absent when SPIRE does not say. */
  created?: string;
  /** Updated since it was created (at a time SPIRE does not keep). */
  updatedSince: boolean;
  /**
   * Seconds from the last recorded moment before the entry's creation at
   * which the pod could have become registrable, to that creation, and
   * which moment it is.
   */
  after?: { seconds: number; since: 'pod-scheduled' | 'pod-created' | 'object-created'; at: string };
  /** In words, for the table. */
  detail: string;
}

/** When the pod was bound to its node, by its PodScheduled condition, if it says so. */
export function podScheduledAt(pod: Pod): string | undefined {
  const conditions = pod.status?.conditions;
  if (!Array.isArray(conditions)) return undefined;
  const c = (conditions as { type?: string; status?: string; lastTransitionTime?: string }[]).find((x) => x.type === 'PodScheduled' && x.status === 'True');
  return c?.lastTransitionTime;
}

const seconds = (iso: string) => Date.parse(iso) / 1000;
const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z');

const SINCE_WORDS: Record<NonNullable<EntryTiming['after']>['since'], string> = {
  'pod-scheduled': 'the pod was scheduled',
  'pod-created': 'the pod was created',
  'object-created': 'its ClusterSPIFFEID was created',
};

export function entryTiming(input: { entry: { id: string; createdAt?: number; revision?: string }; pod: Pod; objectCreated?: string }): EntryTiming {
  const { entry, pod } = input;
  const updatedSince = Number(entry.revision ?? 0) > 0;
  const updated = updatedSince ? `; updated since (revision ${entry.revision}), at a time SPIRE does not keep` : '';
  if (entry.createdAt === undefined) {
    return { id: entry.id, updatedSince, detail: `SPIRE does not say when it was created (created_at is reported by SPIRE 1.6.3 and later)${updated}` };
  }
  const created = entry.createdAt;
  const candidates: { since: NonNullable<EntryTiming['after']>['since']; at: string }[] = [];
  const scheduled = podScheduledAt(pod);
  // A PodScheduled condition later than the entry is the kubelet's, for a pod created on its node: it was registrable from its creation.
  if (scheduled !== undefined && seconds(scheduled) <= created) candidates.push({ since: 'pod-scheduled', at: scheduled });
  else if (pod.metadata.creationTimestamp) candidates.push({ since: 'pod-created', at: pod.metadata.creationTimestamp });
  if (input.objectCreated) candidates.push({ since: 'object-created', at: input.objectCreated });
  const latest = candidates.reduce<(typeof candidates)[number] | undefined>((a, c) => (!a || seconds(c.at) > seconds(a.at) ? c : a), undefined);
  const at = iso(created);
  if (!latest) return { id: entry.id, created: at, updatedSince, detail: `created ${at}${updated}` };
  const gap = created - seconds(latest.at);
  // Two clocks, in whole seconds: a SPIRE server's clock behind the API server's shows as an entry older than the pod.
  const detail =
    gap >= 0
      ? `created ${at}, ${Math.round(gap)} s after ${SINCE_WORDS[latest.since]} (${latest.at})${updated}`
      : `created ${at}, ${Math.round(-gap)} s before ${SINCE_WORDS[latest.since]} (${latest.at}) by the two servers' clocks, which differ${updated}`;
  return { id: entry.id, created: at, updatedSince, after: { seconds: Math.max(0, Math.round(gap)), since: latest.since, at: latest.at }, detail };
}
