import type { SpireClient } from '../spire/index.js';
import type { OptionalField } from './compare.js';

/**
 * Finds the entry fields this SPIRE server drops (servers older than 1.6.3
 * drop `hint`, older than 1.5.0 `jwt_svid_ttl`), by writing a probe entry
 * and reading back what was stored. The probe carries our prefix, so it is
 * ours to delete, and only ours is deleted.
 */
export async function detectUnsupportedFields(spire: SpireClient, trustDomain: string, entryIDPrefix: string): Promise<Set<OptionalField>> {
  const id = `${entryIDPrefix}unsupported-fields-probe`;
  const probeId = { trust_domain: trustDomain, path: '/spire-reconciler/unsupported-fields-probe' };
  const outcome = await spire.createEntries([
    { id, parent_id: probeId, spiffe_id: probeId, selectors: [{ type: 'a', value: '1' }], x509_svid_ttl: 60, jwt_svid_ttl: 60, store_svid: true, hint: 'hint' },
  ]);
  const [result] = outcome.results;
  if (!result || !result.entry || !(result.status.ok || result.status.codeName === 'ALREADY_EXISTS')) {
    throw new Error(`unsupported-field probe: failed to create entry: ${result?.status.message ?? 'no result'}`);
  }
  const stored = result.entry;
  const unsupported = new Set<OptionalField>();
  if (stored.jwt_svid_ttl === 0) unsupported.add('jwtSvidTtl');
  if (stored.hint === '') unsupported.add('hint');
  if (!stored.store_svid) unsupported.add('storeSvid');
  if (stored.id.startsWith(entryIDPrefix)) await spire.deleteEntries([stored.id]);
  return unsupported;
}

/**
 * Keeps the answer of the probe above, asking again every `intervalMs`
 * (10 minutes, as upstream). A failed probe keeps the last answer and is
 * retried on the next pass.
 */
export class UnsupportedFieldsProbe {
  fields: Set<OptionalField> | undefined;
  private probedAt = 0;

  constructor(
    private readonly intervalMs = 10 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  async refresh(spire: SpireClient, trustDomain: string, entryIDPrefix: string, warn: (message: string) => void): Promise<Set<OptionalField> | undefined> {
    if (this.fields && this.now() - this.probedAt <= this.intervalMs) return this.fields;
    try {
      this.fields = await detectUnsupportedFields(spire, trustDomain, entryIDPrefix);
      this.probedAt = this.now();
      if (this.fields.size > 0) warn(`SPIRE server does not store: ${[...this.fields].join(', ')}; they are left out of comparisons`);
    } catch (err) {
      warn(`unsupported-field probe failed, will retry: ${(err as Error).message}`);
    }
    return this.fields;
  }
}
