import { classifyEntry, formerPrefixOf, SERVER_GENERATED_ID } from './ownership.js';
import { type Plan, planEntries, type PlanInput } from './plan.js';

/**
 * What the current entries say about where this controller came from, with
 * counts, for `plan` and the start-up log: entries a migration has to deal
 * with, and exactly what each setting would do about them in this pass.
 */
export interface MigrationNotes {
  /**
   * Declared entries held by entries with server-generated IDs: what
   * spire-controller-manager without entryIDPrefix (upstream's default)
   * leaves, and what `spire-server entry create` makes.
   */
  serverGenerated?: {
    /** Declared entries (keys) held by them: conflicts, not created. */
    held: number;
    /** Pod entries with such IDs under this cluster's agents that nothing declares: never cleaned up. */
    strays: number;
    /** What this pass would do with `entryIDPrefixCleanup: ""`. */
    withCleanup: { deletes: number; creates: number; replacing: number };
    /** What this pass would do with `entryScope: all`. */
    withScopeAll: { updates: number; deletes: number };
  };
  /** Entries of each former default prefix that has any, while the prefix is derived from clusterName. */
  legacy?: LegacyNote[];
}

interface LegacyNote {
  prefix: string;
  /** Its IDs alone show the entries are ours (see FormerPrefix.proves). */
  byIdAlone: boolean;
  managed: number;
  leftAlone: number;
  leftAloneIds: string[];
}

/**
 * Reads the notes off a planned pass. Re-plans with each alternative
 * setting only when entries with server-generated IDs hold declared keys,
 * so the counts are the planner's own, not an estimate.
 */
export function migrationNotes(input: PlanInput, plan: Plan): MigrationNotes {
  const o = input.ownership;
  const notes: MigrationNotes = {};
  const held = plan.conflicts.filter((c) => c.foreignIds.some((id) => SERVER_GENERATED_ID.test(id))).length;
  if (held > 0 && o.entryScope === 'prefixed' && o.entryIDPrefixCleanup === undefined && !o.serverAssignsIds) {
    const ours = o.agents?.clusterName;
    const strays = input.current.filter(
      (e) => SERVER_GENERATED_ID.test(e.id) && e.podUid !== undefined && ours !== undefined && o.agents!.clusterOf(e.spec.parentId) === ours && !plan.keys.has(e.key),
    ).length;
    const cleanup = planEntries({ ...input, ownership: { ...o, entryIDPrefixCleanup: '' } });
    const all = planEntries({ ...input, ownership: { ...o, entryScope: 'all' } });
    notes.serverGenerated = {
      held,
      strays,
      withCleanup: { deletes: cleanup.deletes.length, creates: cleanup.creates.length, replacing: cleanup.creates.filter((c) => c.replaces).length },
      withScopeAll: { updates: all.updates.length, deletes: all.deletes.length },
    };
  }
  const legacy = legacyNotes(input, plan);
  if (legacy.length > 0) notes.legacy = legacy;
  return notes;
}

/** Per former default prefix: its entries this pass manages (or adopts), and those it leaves alone. */
function legacyNotes(input: PlanInput, plan: Plan): LegacyNote[] {
  const o = input.ownership;
  const adopted = new Set(plan.adopted);
  const notes = new Map((o.formerPrefixes ?? []).map((f) => [f.prefix, { prefix: f.prefix, byIdAlone: f.proves, managed: 0, leftAlone: 0, leftAloneIds: [] as string[] }]));
  for (const e of input.current) {
    const former = formerPrefixOf(e.id, o);
    const note = former && notes.get(former.prefix);
    if (!note) continue;
    const cls = classifyEntry(e, o);
    if (adopted.has(e.id) || cls === 'managed') note.managed++;
    // A cleanup entry is neither: the plan deletes it.
    else if (cls !== 'cleanup') note.leftAloneIds.push(e.id);
  }
  return [...notes.values()].map((n) => ({ ...n, leftAlone: n.leftAloneIds.length })).filter((n) => n.managed + n.leftAlone > 0);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The notes in words: each a line for the log and for `plan`, saying what to set. */
export function describeMigration(notes: MigrationNotes, entryIDPrefix: string): { level: 'warn' | 'info'; message: string }[] {
  const out: { level: 'warn' | 'info'; message: string }[] = [];
  const s = notes.serverGenerated;
  if (s) {
    out.push({
      level: 'warn',
      message:
        `migration: ${s.held} declared entr${s.held === 1 ? 'y is' : 'ies are'} held by entries with server-generated IDs (spire-controller-manager without entryIDPrefix makes those), ` +
        `and ${s.strays} more such pod entr${s.strays === 1 ? 'y' : 'ies'} under this cluster's agents ${s.strays === 1 ? 'is' : 'are'} declared by nothing. ` +
        'They are not ours under entryScope prefixed: the declared ones are reported as conflicts and left as they are, the others are never cleaned up; nothing is deleted',
    });
    out.push({
      level: 'warn',
      message:
        `migration: to take them over, set entryIDPrefixCleanup: "" for one pass, then remove it: this pass it would delete ${s.withCleanup.deletes} entries whose IDs have no "." ` +
        `(every one on the server but join tokens and other clusters' pod entries) and create ${s.withCleanup.creates} with ${entryIDPrefix} IDs (${s.withCleanup.replacing} in place of held ones)`,
    });
    out.push({
      level: 'warn',
      message:
        `migration: or set entryScope: all to manage every entry on the server as it is, if this SPIRE server serves this cluster alone: ` +
        `this pass it would make ${plural(s.withScopeAll.updates, 'update')} and ${plural(s.withScopeAll.deletes, 'delete')}. Run plan with either setting to see each change`,
    });
  }
  for (const l of notes.legacy ?? []) out.push(describeLegacy(l, entryIDPrefix));
  return out;
}

function describeLegacy(l: LegacyNote, entryIDPrefix: string): { level: 'warn' | 'info'; message: string } {
  const are = (n: number) => (n === 1 ? 'is' : 'are');
  const why = l.byIdAlone ? 'the prefix names it' : 'parent under its agents, or holding an entry it declares';
  return {
    level: l.leftAlone > 0 ? 'warn' : 'info',
    message:
      `entryIDPrefix is not set, so new entries get IDs starting ${entryIDPrefix} (derived from clusterName). ` +
      `${l.managed} entr${l.managed === 1 ? 'y' : 'ies'} with the former default prefix ${l.prefix} ${are(l.managed)} this cluster's (${why}) and stay in place, managed` +
      (l.leftAlone > 0
        ? `; ${l.leftAlone} ${are(l.leftAlone)} left alone, since another cluster may own ${l.leftAlone === 1 ? 'it' : 'them'} (if this SPIRE server serves this cluster alone, delete ${l.leftAlone === 1 ? 'it' : 'them'} with spire-server entry delete: \`plan\` lists them under Migration)`
        : ''),
  };
}

/** The notes as log lines, at their levels (the start-up log of both modes). */
export function logMigration(log: { info(line: string): void; warn(line: string): void }, notes: MigrationNotes | undefined, entryIDPrefix: string): void {
  if (!notes) return;
  for (const m of describeMigration(notes, entryIDPrefix)) log[m.level](m.message);
}
