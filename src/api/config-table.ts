/**
 * What an entry of the config's key table (config-keys.ts) says, and what is
 * derived from the table: the settings' type, their defaults, the reader of
 * the file and the settings a file makes. docs/configuration.md's table of
 * keys is drawn from the same entries (scripts/config-doc.ts).
 */
import { mapping, type Problems, type Reader } from './config-readers.js';

/** Upstream's side of a key, as docs/configuration.md shows it. */
export type Upstream = { is: 'same' } | { is: 'upstream'; shows: string; deliberate: boolean } | { is: 'ours'; shows: string };

/** Upstream reads the key and its default is ours. */
export const SAME: Upstream = { is: 'same' };
/** Upstream's default, in the docs' words, where they say it otherwise than ours. */
export const upstreamShows = (shows: string): Upstream => ({ is: 'upstream', shows, deliberate: false });
/** Upstream's default where ours differs from it on purpose: the docs show ours in bold, and the note says why. */
export const deliberatelyNot = (shows: string): Upstream => ({ is: 'upstream', shows, deliberate: true });
/** A key upstream lacks; `instead`: what upstream does without it, if worth saying. */
export const ours = (instead = ''): Upstream => ({ is: 'ours', shows: instead });

interface KeyOfFile {
  /**
   * Where the key is in the file, when not under the entry's name: its name
   * there, or its path through nested mappings (`health.livenessEndpointName`).
   */
  file?: string;
  upstream: Upstream;
  /** docs/configuration.md's note on the key, in Markdown. */
  doc: string;
}

/**
 * A key of the file that makes one setting. `check` and `interpret` are
 * methods so that one table holds settings of every type.
 */
export interface Setting<T, Optional extends boolean = boolean> extends KeyOfFile {
  kind: 'setting';
  read: Reader<T>;
  /** The problem with a value read, as the message that follows its field ("must be positive"), or undefined. */
  check?(value: T): string | undefined;
  /** What a value read means, where that is not the value itself; undefined keeps the default. */
  interpret?(value: T): T | undefined;
  default: T | undefined;
  /** An optional setting has no default: absent unless the file gives it. */
  optional: Optional;
  /** A required setting: an empty or absent one is refused. */
  required: boolean;
  /** The docs' words for the default, where its value alone would not say it ("detected in live mode"). */
  shown?: string;
}

/**
 * A key of the file that makes no setting of its own: checked and left
 * (leaderElection.resourceLock), taken up by parseConfig (cacheNamespace,
 * tlsConfig's keys), or accepted with a warning that it has no effect here.
 */
export interface FileOnlyKey extends KeyOfFile {
  kind: 'fileOnly';
  read: Reader<unknown>;
  /** What ours does with it, in the docs' words. */
  shown: string;
}

/**
 * A setting no one key makes: parseConfig makes it (webhook.enabled from the
 * environment, webhookTls from tlsConfig's keys together).
 */
export interface Computed<T> {
  kind: 'computed';
  default: T;
}

/** A mapping of the file that is a mapping of the settings too. */
export interface Block<Keys extends KeyTable> {
  kind: 'block';
  keys: Keys;
  /** A block the file gives is taken as written: a key it omits is false, not its default (upstream's `reconcile`). */
  verbatim: boolean;
}

export type Entry = Setting<unknown> | FileOnlyKey | Computed<unknown> | Block<KeyTable>;
export type KeyTable = Readonly<Record<string, Entry>>;

/** The settings a table makes, by name: each setting's value, each block's settings. Optional settings may be absent. */
export type SettingsOf<Table extends KeyTable> = Flat<
  { [K in keyof Table as Table[K] extends FileOnlyKey | Setting<unknown, true> ? never : K]: ValueOf<Table[K]> } & {
    [K in keyof Table as Table[K] extends Setting<unknown, true> ? K : never]?: ValueOf<Table[K]>;
  }
>;
type ValueOf<E> = E extends Setting<infer T> | Computed<infer T> ? T : E extends Block<infer Keys> ? SettingsOf<Keys> : never;
type Flat<T> = { [K in keyof T]: T[K] };

interface SettingSpec<T> extends KeyOfFile {
  read: Reader<T>;
  check?(value: T): string | undefined;
  interpret?(value: T): T | undefined;
  required?: boolean;
  shown?: string;
}

export function setting<T>(spec: SettingSpec<T> & { default: NoInfer<T> }): Setting<T, false> {
  return { kind: 'setting', optional: false, required: false, ...spec };
}

export function optionalSetting<T>(spec: SettingSpec<T>): Setting<T, true> {
  return { kind: 'setting', optional: true, required: false, default: undefined, ...spec };
}

export function fileOnlyKey(spec: Omit<FileOnlyKey, 'kind'>): FileOnlyKey {
  return { kind: 'fileOnly', ...spec };
}

/**
 * A key upstream reads that has no counterpart here: accepted (and read,
 * when `read` is given, so a bad value is still refused) with a warning that
 * says why, so nobody expects an effect.
 */
export function noEffect(spec: { why: string; read?: Reader<unknown>; upstream: Upstream; doc?: string }): FileOnlyKey {
  const warn: Reader<unknown> = (v, field, p) => {
    if (spec.read && spec.read(v, field, p) === undefined) return undefined;
    p.warnings.push(`${field}: accepted for compatibility, ${spec.why}`);
    return undefined;
  };
  const doc = `accepted with a warning: ${spec.why}${spec.doc ? `. ${spec.doc}` : ''}`;
  return { kind: 'fileOnly', read: warn, shown: 'no effect', upstream: spec.upstream, doc };
}

export function computed<T>(value: T): Computed<T> {
  return { kind: 'computed', default: value };
}

export function block<Keys extends KeyTable>(keys: Keys, opts: { verbatim?: boolean } = {}): Block<Keys> {
  return { kind: 'block', keys, verbatim: opts.verbatim ?? false };
}

/** What the file gave, as read: its mappings nested as in the file. */
export type FileValues = Readonly<Record<string, unknown>>;

const placeInFile = (name: string, entry: Entry) => (entry.kind === 'setting' || entry.kind === 'fileOnly' ? (entry.file ?? name) : name);

/**
 * A table's settings from what the file gave: each value given, as it
 * means it; the default for each one not given. Nothing given: the defaults.
 */
export function settingsOf<Table extends KeyTable>(table: Table, given?: FileValues): SettingsOf<Table> {
  return settingsFrom(table, given) as SettingsOf<Table>;
}

function settingsFrom(table: KeyTable, given: FileValues | undefined, verbatim = false): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(table)) {
    const value = settingFrom(entry, given && valueAt(given, placeInFile(name, entry)), given !== undefined && verbatim);
    if (value !== undefined) settings[name] = value;
  }
  return settings;
}

function settingFrom(entry: Entry, given: unknown, omittedIsFalse: boolean): unknown {
  switch (entry.kind) {
    case 'fileOnly':
      return undefined;
    case 'computed':
      return structuredClone(entry.default);
    case 'block':
      return settingsFrom(entry.keys, given as FileValues | undefined, entry.verbatim);
    case 'setting': {
      const meant = given === undefined || !entry.interpret ? given : entry.interpret(given);
      if (meant !== undefined) return meant;
      return omittedIsFalse ? false : structuredClone(entry.default);
    }
  }
}

function valueAt(values: FileValues, path: string): unknown {
  let at: unknown = values;
  for (const step of path.split('.')) at = typeof at === 'object' && at !== null ? (at as FileValues)[step] : undefined;
  return at;
}

interface ReaderTree {
  [key: string]: Reader<unknown> | ReaderTree;
}

/**
 * The reader of the mapping a table describes: each key's reader at its
 * place, `before` first (the document's apiVersion, kind, metadata).
 */
export function fileReader(table: KeyTable, before: Readonly<Record<string, Reader<unknown>>> = {}): Reader<FileValues> {
  const tree: ReaderTree = { ...before };
  for (const [name, entry] of Object.entries(table)) {
    if (entry.kind === 'computed') continue;
    const reader = entry.kind === 'block' ? fileReader(entry.keys) : entry.kind === 'setting' ? readAndCheck(entry) : entry.read;
    place(tree, placeInFile(name, entry).split('.'), reader);
  }
  return mappingOf(tree);
}

function place(tree: ReaderTree, [head, ...rest]: string[], reader: Reader<unknown>): void {
  if (head === undefined) throw new Error('a key table entry has an empty file path');
  if (rest.length === 0) tree[head] = reader;
  else place((tree[head] ??= {}) as ReaderTree, rest, reader);
}

function mappingOf(tree: ReaderTree): Reader<FileValues> {
  return mapping(Object.fromEntries(Object.entries(tree).map(([key, node]) => [key, typeof node === 'function' ? node : mappingOf(node)])));
}

/** A setting's reader, then its check. A value that fails the check is still returned: it is refused, and not taken for absent. */
function readAndCheck(entry: Setting<unknown>): Reader<unknown> {
  return (v, field, p) => {
    const value = entry.read(v, field, p);
    const problem = value === undefined ? undefined : entry.check?.(value);
    if (problem !== undefined) p.errors.push(`${field}: ${problem}`);
    return value;
  };
}

/** Refuses each required setting that is empty or absent, naming it by its place in the file. */
export function checkRequired(table: KeyTable, settings: Readonly<Record<string, unknown>>, p: Problems, within = ''): void {
  for (const [name, entry] of Object.entries(table)) {
    const path = `${within}${placeInFile(name, entry)}`;
    if (entry.kind === 'block') checkRequired(entry.keys, settings[name] as Record<string, unknown>, p, `${path}.`);
    if (entry.kind === 'setting' && entry.required && !settings[name]) p.errors.push(`${path}: is required`);
  }
}

/** Every key of the file a table describes, with its full path, in the table's order. */
export function keysOfFile(table: KeyTable, within = ''): { path: string; entry: Setting<unknown> | FileOnlyKey }[] {
  return Object.entries(table).flatMap(([name, entry]) => {
    const path = `${within}${placeInFile(name, entry)}`;
    if (entry.kind === 'block') return keysOfFile(entry.keys, `${path}.`);
    return entry.kind === 'computed' ? [] : [{ path, entry }];
  });
}
