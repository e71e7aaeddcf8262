import { hash } from 'node:crypto';
import type { ControllerConfig } from '../api/index.js';
import type { CompiledTemplate } from '../template/index.js';
import { type AgentAttribution, agentAttribution } from './agents.js';
import type { CurrentEntry } from './model.js';

export type EntryScope = 'prefixed' | 'all';
export type Policy = 'sync' | 'upsert-only' | 'create-only';

export interface Ownership {
  /** IDs of entries this controller creates start with it (by default derived from clusterName, see defaultEntryIDPrefix). */
  entryIDPrefix: string;
  /** `prefixed`: touch only our entries. `all`: every entry but join-token ones. */
  entryScope: EntryScope;
  /**
   * Entries of another prefix to delete during a migration. `''` means the
   * server-generated UUIDs (IDs without a `.`), as upstream defines it.
   */
  entryIDPrefixCleanup?: string;
  /**
   * The former default prefix (`scm-`), set while the prefix is the derived
   * default: its entries are ours where they can be told apart from another
   * cluster's (their parent names this cluster's agents, or they hold an entry
   * we declare); the rest are left alone.
   */
  legacyPrefix?: string;
  /** Whose agents a parent ID names. Without it no entry is attributed to a cluster. */
  agents?: AgentAttribution;
  /**
   * The SPIRE server ignores requested entry IDs (older than 1.8.0), so our
   * entries carry server-generated IDs: pod entries under this cluster's
   * agents and entries holding a key we declare are taken as ours.
   */
  serverAssignsIds?: boolean;
  /** IDs known to be ours although they do not carry the prefix: created or adopted by this process (see ClaimedIds). */
  claimed?: ReadonlySet<string>;
}

/** The default before entry ID prefixes were derived from the cluster name. */
export const LEGACY_ENTRY_ID_PREFIX = 'scm-';

const ID_CHARS = /^[A-Za-z0-9._-]+$/;
/** SPIRE takes entry IDs of up to 255 bytes; ours are the prefix and a 36-character UUID. */
const MAX_PREFIX = 200;

/**
 * The prefix used when the config sets none: the cluster name and a `.`,
 * the value spire-controller-manager's helm chart writes (`entryIDPrefix:
 * <clusterName>`, a `.` appended), so that clusters sharing one SPIRE server
 * never take each other's entries for their own. A cluster name with
 * characters SPIRE refuses in an entry ID ([A-Za-z0-9._-] only) has them
 * replaced and a short hash of the name added, so two such names stay apart.
 */
export function defaultEntryIDPrefix(clusterName: string): string {
  if (ID_CHARS.test(clusterName) && clusterName.length <= MAX_PREFIX) return clusterName.endsWith('.') ? clusterName : `${clusterName}.`;
  const readable = clusterName.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, MAX_PREFIX - 10);
  return `${readable}-${hash('sha256', clusterName, 'hex').slice(0, 8)}.`;
}

/**
 * An ID made by a controller with this prefix: the prefix, then a part
 * without a `.` (a UUID). So the prefix `a.` does not claim `a.b.<uuid>`,
 * the IDs of the cluster `a.b`. The empty prefix (upstream's "no prefix")
 * matches every ID.
 */
export function hasOwnPrefix(id: string, prefix: string): boolean {
  return id.startsWith(prefix) && (prefix === '' || id.indexOf('.', prefix.length) === -1);
}

/** What SPIRE generates when a create names no ID, or every ID before 1.8.0: a lowercase UUID v4. */
export const SERVER_GENERATED_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * managed: ours to update and delete. adoptable: ours if it holds a key we
 * declare (then it is kept and updated, not replaced), else left alone (or
 * deleted when it matches the cleanup prefix). cleanup: only to delete.
 * foreign: never touched.
 */
export type EntryClass = 'managed' | 'adoptable' | 'cleanup' | 'foreign';

/** Which current entries the controller may change, may only delete, or must leave alone. */
export function classifyEntry(e: Pick<CurrentEntry, 'id' | 'spec' | 'podUid'>, o: Ownership): EntryClass {
  // The empty prefix is upstream's "no prefix": every entry is ours, as with entryScope all.
  if (o.entryScope === 'all' || o.entryIDPrefix === '') return 'managed';
  if (provenOurs(e.id, o)) return 'managed';
  const cluster = o.agents?.clusterOf(e.spec.parentId);
  // Another cluster's workload, whatever its ID says: never ours.
  if (cluster !== undefined && cluster !== o.agents!.clusterName) return 'foreign';
  const underOurAgents = cluster !== undefined;
  if (o.legacyPrefix !== undefined && hasOwnPrefix(e.id, o.legacyPrefix)) return underOurAgents ? 'managed' : 'adoptable';
  if (o.serverAssignsIds && SERVER_GENERATED_ID.test(e.id)) return underOurAgents && e.podUid !== undefined ? 'managed' : 'adoptable';
  return matchesCleanup(e.id, o) ? 'cleanup' : 'foreign';
}

/** The entry's ID shows it is ours: our prefix, or created or adopted by this process. */
export function provenOurs(id: string, o: Ownership): boolean {
  return (o.entryIDPrefix !== '' && hasOwnPrefix(id, o.entryIDPrefix)) || o.claimed?.has(id) === true;
}

export function matchesCleanup(id: string, o: Ownership): boolean {
  const c = o.entryIDPrefixCleanup;
  if (c === undefined) return false;
  return c === '' ? !id.includes('.') : id.startsWith(c);
}

/**
 * The cluster, other than ours, whose agent the entry's parent names, when
 * its ID does not prove it ours: such an entry is never deleted, whatever
 * the scope or cleanup setting (a shared SPIRE server).
 */
export function otherClusterOf(e: Pick<CurrentEntry, 'id' | 'spec'>, o: Ownership): string | undefined {
  if (!o.agents || provenOurs(e.id, o)) return undefined;
  const cluster = o.agents.clusterOf(e.spec.parentId);
  return cluster !== undefined && cluster !== o.agents.clusterName ? cluster : undefined;
}

/**
 * The ownership rules a config asks for. Without `entryIDPrefix` the prefix
 * is derived from the cluster name, and entries of the former default
 * prefix are recognised (legacyPrefix). Throws when the cleanup prefix is
 * the prefix itself: every entry we create would be deleted by the next pass.
 */
export function ownershipFromConfig(
  c: Pick<ControllerConfig, 'trustDomain' | 'clusterName' | 'entryIDPrefix' | 'entryIDPrefixCleanup' | 'entryScope'>,
  parentIdTemplate?: CompiledTemplate,
): Ownership {
  const derived = c.entryIDPrefix === undefined;
  const entryIDPrefix = c.entryIDPrefix ?? defaultEntryIDPrefix(c.clusterName);
  if (c.entryIDPrefixCleanup !== undefined && entryIDPrefix !== '' && c.entryIDPrefixCleanup === entryIDPrefix) {
    throw new Error(`entryIDPrefixCleanup: must differ from the entry ID prefix "${entryIDPrefix}"${derived ? ' (derived from clusterName: entryIDPrefix is not set)' : ''}`);
  }
  return {
    entryIDPrefix,
    entryScope: c.entryScope,
    ...(c.entryIDPrefixCleanup !== undefined ? { entryIDPrefixCleanup: c.entryIDPrefixCleanup } : {}),
    ...(derived && entryIDPrefix !== LEGACY_ENTRY_ID_PREFIX ? { legacyPrefix: LEGACY_ENTRY_ID_PREFIX } : {}),
    agents: agentAttribution(c.trustDomain, c.clusterName, parentIdTemplate),
  };
}
