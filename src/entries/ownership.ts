export type EntryScope = 'prefixed' | 'all';
export type Policy = 'sync' | 'upsert-only' | 'create-only';

export interface Ownership {
  /** IDs of entries this controller creates start with it (default `scm-`). */
  entryIDPrefix: string;
  /** `prefixed`: touch only prefixed entries. `all`: every entry but join-token ones. */
  entryScope: EntryScope;
  /**
   * Entries of another prefix to delete during a migration. `''` means the
   * server-generated UUIDs (IDs without a `.`), as upstream defines it.
   */
  entryIDPrefixCleanup?: string;
}


export type EntryClass = 'managed' | 'cleanup' | 'foreign';

/** Which current entries the controller may change, may only delete, or must leave alone. */
export function classifyEntryId(id: string, o: Ownership): EntryClass {
  if (o.entryScope === 'all') return 'managed';
  if (id.startsWith(o.entryIDPrefix)) return 'managed';
  if (o.entryIDPrefixCleanup !== undefined) {
    if (o.entryIDPrefixCleanup === '' ? !id.includes('.') : id.startsWith(o.entryIDPrefixCleanup)) return 'cleanup';
  }
  return 'foreign';
}
