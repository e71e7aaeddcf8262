import { hash } from 'node:crypto';
import type { ControllerConfig } from '../api/index.js';
import type { CompiledTemplate } from '../template/index.js';
import { type AgentAttribution, agentAttribution } from './agents.js';
import { BOOTSTRAP_ID_PREFIX } from './bootstrap.js';
import type { CurrentEntry } from './model.js';

type EntryScope = 'prefixed' | 'all';
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
   * The defaults of earlier releases, set while the prefix is the derived
   * default (see formerDefaultPrefixes), so their entries are updated in
   * place instead of duplicated, and deleted instead of leaked.
   */
  formerPrefixes?: readonly FormerPrefix[];
  /**
   * The cluster whose former default prefix equals our prefix (`scm-a.` was
   * cluster `scm-a`'s and is now cluster `a`'s): an entry under its agents
   * is its own, whatever the ID says, while it may still run that release.
   */
  prefixFormerlyOf?: string;
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

/**
 * A prefix an earlier release created entries with by default. `proves`:
 * no other cluster's default makes it, so its IDs are ours as our prefix's
 * are. Otherwise another cluster sharing the SPIRE server may have made
 * them: ours only where told apart (the parent names this cluster's agents,
 * or the entry holds a key we declare), the rest left alone.
 */
interface FormerPrefix {
  prefix: string;
  proves: boolean;
}

/**
 * The mark of spire-controller-manager's entry IDs, which the product's
 * documentation promises: followed by a UUID alone it names no cluster (an
 * earlier default); followed by the cluster part it is the default now.
 */
const SCM_PREFIX = 'scm-';

const ID_CHARS = /^[A-Za-z0-9._-]+$/;
/** SPIRE takes entry IDs of up to 255 bytes; ours are the prefix (at most 4 + 201) and a 36-character UUID. */
const MAX_CLUSTER_PART = 200;

/**
 * The cluster name and a `.`, the value spire-controller-manager's helm
 * chart writes (`entryIDPrefix: <clusterName>`, a `.` appended). A name
 * with characters SPIRE refuses in an entry ID ([A-Za-z0-9._-] only) has
 * them replaced and a short hash of the name added, so two such names stay
 * apart.
 */
function clusterIdPart(clusterName: string): string {
  if (ID_CHARS.test(clusterName) && clusterName.length <= MAX_CLUSTER_PART) return clusterName.endsWith('.') ? clusterName : `${clusterName}.`;
  const readable = clusterName.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, MAX_CLUSTER_PART - 10);
  return `${readable}-${hash('sha256', clusterName, 'hex').slice(0, 8)}.`;
}

/**
 * The prefix used when the config sets none: `scm-`, the cluster name and
 * a `.`. The cluster part keeps clusters that share one SPIRE server from
 * taking each other's entries for their own.
 */
export function defaultEntryIDPrefix(clusterName: string): string {
  return `${SCM_PREFIX}${clusterIdPart(clusterName)}`;
}

/**
 * The defaults before this one, whose entries are still this cluster's:
 * bare `scm-`, which names no cluster, and `<clusterName>.`, which does,
 * unless it starts with `scm-` (then it is also another cluster's default
 * now: `scm-a.` is cluster `a`'s).
 */
function formerDefaultPrefixes(clusterName: string): FormerPrefix[] {
  const named = clusterIdPart(clusterName);
  return [
    { prefix: SCM_PREFIX, proves: false },
    { prefix: named, proves: !named.startsWith(SCM_PREFIX) },
  ];
}

/**
 * An ID made by a controller with this prefix: the prefix, then a part
 * without a `.` (a UUID). So the prefix `a.` does not claim `a.b.<uuid>`,
 * the IDs of the cluster `a.b`, and `scm-` does not claim `scm-a.<uuid>`.
 * The empty prefix (upstream's "no prefix") matches every ID.
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
type EntryClass = 'managed' | 'adoptable' | 'cleanup' | 'foreign';

/** Which current entries the controller may change, may only delete, or must leave alone. */
export function classifyEntry(e: Pick<CurrentEntry, 'id' | 'spec' | 'podUid'>, o: Ownership): EntryClass {
  // The controller's own admin entries (standalone layout): deleting them would cut its own access, whatever the scope.
  if (e.id.startsWith(BOOTSTRAP_ID_PREFIX)) return 'foreign';
  // The empty prefix is upstream's "no prefix": every entry is ours, as with entryScope all.
  if (o.entryScope === 'all' || o.entryIDPrefix === '') return 'managed';
  if (provenOurs(e, o)) return 'managed';
  const cluster = o.agents?.clusterOf(e.spec.parentId);
  // Another cluster's workload, whatever its ID says: never ours.
  if (cluster !== undefined && cluster !== o.agents!.clusterName) return 'foreign';
  const underOurAgents = cluster !== undefined;
  if (formerPrefixOf(e.id, o)?.proves === false) return underOurAgents ? 'managed' : 'adoptable';
  if (o.serverAssignsIds && SERVER_GENERATED_ID.test(e.id)) return underOurAgents && e.podUid !== undefined ? 'managed' : 'adoptable';
  return matchesCleanup(e.id, o) ? 'cleanup' : 'foreign';
}

/**
 * The entry's ID shows it is ours: our prefix (but for an entry under the
 * agents of the cluster that prefix formerly belonged to), a former prefix
 * that proves it (unless the cleanup prefix names it: then it is replaced),
 * or created or adopted by this process.
 */
function provenOurs(e: Pick<CurrentEntry, 'id' | 'spec'>, o: Ownership): boolean {
  if (o.claimed?.has(e.id) === true) return true;
  if (o.entryIDPrefix !== '' && hasOwnPrefix(e.id, o.entryIDPrefix)) {
    return o.prefixFormerlyOf === undefined || o.agents?.clusterOf(e.spec.parentId) !== o.prefixFormerlyOf;
  }
  return formerPrefixOf(e.id, o)?.proves === true && !matchesCleanup(e.id, o);
}

/** The former default prefix the ID carries, if any (they never overlap: see formerDefaultPrefixes). */
export function formerPrefixOf(id: string, o: Pick<Ownership, 'formerPrefixes'>): FormerPrefix | undefined {
  return o.formerPrefixes?.find((f) => hasOwnPrefix(id, f.prefix));
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
  if (!o.agents || provenOurs(e, o)) return undefined;
  const cluster = o.agents.clusterOf(e.spec.parentId);
  return cluster !== undefined && cluster !== o.agents.clusterName ? cluster : undefined;
}

/**
 * The ownership rules a config asks for. Without `entryIDPrefix` the prefix
 * is derived from the cluster name, and entries of the former defaults are
 * recognised (formerPrefixes). Throws when the cleanup prefix is the prefix
 * itself: every entry we create would be deleted by the next pass.
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
  // The cluster whose name is ours after `scm-` had our prefix as its default before.
  const formerOwner = `${SCM_PREFIX}${c.clusterName}`;
  return {
    entryIDPrefix,
    entryScope: c.entryScope,
    entryIDPrefixCleanup: c.entryIDPrefixCleanup,
    formerPrefixes: derived ? formerDefaultPrefixes(c.clusterName) : undefined,
    prefixFormerlyOf: derived && clusterIdPart(formerOwner) === entryIDPrefix ? formerOwner : undefined,
    agents: agentAttribution(c.trustDomain, c.clusterName, parentIdTemplate),
  };
}
