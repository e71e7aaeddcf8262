import type { SpireClient } from '../spire/index.js';
import type { ApplyResult } from './apply.js';
import type { OptionalField } from './compare.js';

/** What a probe entry shows about the SPIRE server. */
interface ServerTraits {
  /** Entry fields it drops (servers older than 1.6.3 drop `hint`, older than 1.5.0 `jwt_svid_ttl`). */
  unsupported: Set<OptionalField>;
  /** It stored the probe under an ID of its own: SPIRE before 1.8.0 ignores requested entry IDs. */
  ignoresEntryIds: boolean;
}

/** The release that made BatchCreateEntry keep a requested entry ID (spire#4380). */
const SPIRE_CUSTOM_ENTRY_IDS = '1.8.0';

export const IGNORED_IDS_WARNING =
  `the SPIRE server ignores requested entry IDs (SPIRE older than ${SPIRE_CUSTOM_ENTRY_IDS}): entries get IDs it generates, which do not carry entryIDPrefix. ` +
  'Safe mode: this controller manages the entries it creates (remembered while it runs), pod entries under this cluster\'s agents, ' +
  'and entries holding an entry it declares; it leaves every other entry alone. ' +
  `Upgrade SPIRE to ${SPIRE_CUSTOM_ENTRY_IDS} or later for ID-based ownership`;

/** The probe's SPIFFE ID (parent ID too): one per entry ID prefix, so clusters sharing a server do not trip over each other's. */
function probeId(trustDomain: string, entryIDPrefix: string) {
  const segment = entryIDPrefix.replace(/\.+$/, '') || 'default';
  return { trust_domain: trustDomain, path: `/spire-reconciler/unsupported-fields-probe/${segment}` };
}

/**
 * Writes a probe entry with every optional field set and our prefixed ID,
 * reads back what was stored, and deletes it by the ID SPIRE returned. A
 * probe left by an earlier process (ALREADY_EXISTS) is deleted and the
 * probe written again, because only a fresh create shows which ID the
 * server keeps.
 */
export async function probeSpireServer(spire: SpireClient, trustDomain: string, entryIDPrefix: string): Promise<ServerTraits> {
  const id = `${entryIDPrefix}unsupported-fields-probe`;
  const probe = probeId(trustDomain, entryIDPrefix);
  for (let attempt = 0; ; attempt++) {
    const outcome = await spire.createEntries([
      { id, parent_id: probe, spiffe_id: probe, selectors: [{ type: 'a', value: '1' }], x509_svid_ttl: 60, jwt_svid_ttl: 60, store_svid: true, hint: 'hint' },
    ]);
    const [result] = outcome.results;
    if (result?.status.codeName === 'ALREADY_EXISTS' && result.entry && attempt === 0) {
      // Only our own leftover probe is deleted: an entry of another ID holding the probe's key is not ours to touch.
      if (result.entry.id !== id) {
        throw new Error(`unsupported-field probe: entry ${result.entry.id} holds the probe's SPIFFE ID ${probe.path}; it is not ours, so it is left alone (delete it if it is a probe left by an older SPIRE)`);
      }
      await spire.deleteEntries([result.entry.id]);
      continue;
    }
    if (!result || !result.entry || !result.status.ok) {
      throw new Error(`unsupported-field probe: failed to create entry: ${result?.status.message ?? 'no result'}`);
    }
    const stored = result.entry;
    const unsupported = new Set<OptionalField>();
    if (stored.jwt_svid_ttl === 0) unsupported.add('jwtSvidTtl');
    if (stored.hint === '') unsupported.add('hint');
    if (!stored.store_svid) unsupported.add('storeSvid');
    await spire.deleteEntries([stored.id]);
    return { unsupported, ignoresEntryIds: stored.id !== id };
  }
}

/**
 * Keeps the answer of the probe above, asking again every `intervalMs`
 * (10 minutes, as upstream). A failed probe keeps the last answer and is
 * retried on the next pass. A server that ignores requested entry IDs is
 * also noticed by the first create it answers with another ID
 * (noticeAssignedIds), and reported once.
 */
export class SpireServerProbe {
  fields: Set<OptionalField> | undefined;
  ignoresEntryIds = false;
  private probedAt = 0;

  constructor(
    private readonly intervalMs = 10 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** `warn` gets each warning once; a failed probe's comes with the error as a value, for the log to carry. */
  async refresh(spire: SpireClient, trustDomain: string, entryIDPrefix: string, warn: (message: string, err?: unknown) => void): Promise<Set<OptionalField> | undefined> {
    if (this.fields && this.now() - this.probedAt <= this.intervalMs) return this.fields;
    try {
      const traits = await probeSpireServer(spire, trustDomain, entryIDPrefix);
      this.fields = traits.unsupported;
      this.probedAt = this.now();
      if (this.fields.size > 0) warn(`SPIRE server does not store: ${[...this.fields].join(', ')}; they are left out of comparisons`);
      this.setIgnoresEntryIds(traits.ignoresEntryIds, warn);
    } catch (err) {
      warn('unsupported-field probe failed, will retry', err);
    }
    return this.fields;
  }

  /** After an apply: creates stored under other IDs than requested show the server ignores them. */
  noticeAssignedIds(applied: Pick<ApplyResult, 'assigned'>, warn: (message: string) => void): void {
    if (applied.assigned.size > 0) this.setIgnoresEntryIds(true, warn);
  }

  private setIgnoresEntryIds(ignores: boolean, warn: (message: string) => void): void {
    if (ignores && !this.ignoresEntryIds) warn(IGNORED_IDS_WARNING);
    if (!ignores && this.ignoresEntryIds) warn('the SPIRE server now keeps requested entry IDs (upgraded?): ownership by entryIDPrefix again');
    this.ignoresEntryIds = ignores;
  }
}
