/**
 * A grammar-based generator of Go templates for the differential test.
 *
 * It writes templates from Go's template grammar (text, actions, trim markers,
 * comments, pipelines, declarations, every builtin function, every literal
 * syntax, if/with/range/else chains, break/continue, define/template/block),
 * guided by the Go types of the template data (gotypes.ts) so that many
 * templates get past evaluation and print something. A share of templates is
 * then mutated character by character, to exercise parse errors.
 *
 * Everything comes from one seeded PRNG per case: `fuzzCase(seed, i)` is the
 * same case on every machine.
 */
import type { GoMethod, GoType } from '../../../src/template/gotypes.js';
import { TEMPLATE_DATA } from '../../../src/template/gotypes.js';
import { MAP_KEYS, ODD_TEXT, randomData } from './data.js';
import type { RenderCase } from './protocol.js';
import { Rng, caseSeed } from './random.js';

export const TEMPLATE_NAMES = ['spiffeIDTemplate', 'dnsNameTemplate', 'workloadSelectorTemplate', 'customParentIDTemplate'];

/** How many arguments each function usually gets. */
const ARG_COUNTS: Readonly<Record<string, readonly [number, number]>> = {
  eq: [2, 3],
  ne: [2, 2],
  lt: [2, 2],
  le: [2, 2],
  gt: [2, 2],
  ge: [2, 2],
  and: [1, 3],
  or: [1, 3],
  not: [1, 1],
  len: [1, 1],
  call: [1, 2],
};

/** Methods of time.Time and metav1.Time the engine evaluates, with how to write their arguments. */
const TIME_METHODS: readonly (readonly [name: string, args: 'none' | 'layout' | 'duration' | 'date' | 'time' | 'metatime' | 'location'])[] = [
  ['Unix', 'none'],
  ['UnixMilli', 'none'],
  ['UnixMicro', 'none'],
  ['UnixNano', 'none'],
  ['Year', 'none'],
  ['Month', 'none'],
  ['Day', 'none'],
  ['Hour', 'none'],
  ['Minute', 'none'],
  ['Second', 'none'],
  ['Nanosecond', 'none'],
  ['YearDay', 'none'],
  ['Weekday', 'none'],
  ['IsZero', 'none'],
  ['IsDST', 'none'],
  ['UTC', 'none'],
  ['Local', 'none'],
  ['String', 'none'],
  ['GoString', 'none'],
  ['Location', 'none'],
  ['Rfc3339Copy', 'none'],
  ['MarshalQueryParameter', 'none'],
  ['ToUnstructured', 'none'],
  ['Date', 'none'],
  ['Clock', 'none'],
  ['ISOWeek', 'none'],
  ['Zone', 'none'],
  ['Format', 'layout'],
  ['Add', 'duration'],
  ['Truncate', 'duration'],
  ['Round', 'duration'],
  ['AddDate', 'date'],
  ['Sub', 'time'],
  ['Compare', 'time'],
  ['After', 'time'],
  ['Before', 'metatime'],
  ['Equal', 'metatime'],
  ['In', 'location'],
];

const LAYOUTS = [
  '2006-01-02',
  '2006-01-02T15:04:05Z07:00',
  '2006-01-02T15:04:05.999999999Z07:00',
  'Jan _2 15:04:05.000',
  'Monday, 02-Jan-06 15:04:05 MST',
  'Mon Jan 2 15:04:05 -0700 2006',
  '3:04PM',
  '03:04:05 pm',
  '20060102150405',
  '.000000 ,999 .9',
  'Z0700 Z07:00:00 -07 -07:00:00 Z07',
  '__2 002 _2 2 01 1 January Jan',
  'year 06 2006 month 1',
  'no layout here',
  '',
  '15h',
];

const ALL_TEXT = ['spiffe://', '/', 'ns/', 'sa/', '.', '-', ' ', '  ', '\n', '\t', 'x', 'svc', '{', '}', '}}', '\\', '%', '$', ':', ...ODD_TEXT];

interface Scope {
  /** Variables visible here (`$` always is). */
  readonly vars: string[];
  /** What dot is, as far as the generator can tell; undefined when it cannot. */
  readonly dot: GoType | undefined;
  readonly inRange: boolean;
  /** Names of templates this case defines or may define. */
  readonly templates: readonly string[];
  /**
   * What `{{template}}` may invoke here: never in a circle. Go gives up on
   * recursion at 100,000 levels, which takes minutes when a level formats
   * something big or sits in a range (each range recovers and re-panics).
   */
  readonly callable: readonly string[];
}

class Generator {
  private size = 0;

  constructor(
    private readonly rng: Rng,
    private readonly name: string,
  ) {}

  // ---- helpers ----

  private pick<T>(items: readonly T[]): T {
    return this.rng.pick(items);
  }

  /** Whether there is still room: caps the size of a template. */
  private room(): boolean {
    return this.size < 14;
  }

  private space(): string {
    return this.rng.weighted([
      [6, ' '],
      [3, ''],
      [1, '  '],
      [1, '\n'],
      [1, '\t'],
    ]);
  }

  // ---- literals ----

  number(): string {
    const r = this.rng;
    return r.weighted<() => string>([
      [6, () => String(r.between(-3, 12))],
      [2, () => String(r.between(-1000, 100000))],
      [0.5, () => r.pick(['007', '0x1F', '-0xaE', '0X_ff', '0b101', '0o17', '0O7', '1_000', '0_7', '08', '1__0', '_1', '0x', '0b2'])],
      [0.5, () => r.pick(['9223372036854775807', '-9223372036854775808', '9223372036854775808', '18446744073709551615', '9007199254740993', '-9007199254740993', '4294967296'])],
      [2, () => r.pick(['1.5', '.5', '1.', '-2.5', '0.5', '2.5', '0.125', '1e3', '1E-7', '1e400', '-1e400', '1e-400', '6.02e23', '1_0.5', '0x1p-2', '0x1.8p1', '0X.8P0', '1e+2', '3.0', '100.0', '0.1', '123456789.125'])],
      [0.4, () => r.pick(['1i', '2.5i', '0i', '1+2i', '-1-1i', '0x10i', '1e3i', '+1', '+0x1', '+1.5', '1+2', '1-i'])],
      [0.6, () => r.pick(["'a'", "'\\n'", "'\\x41'", "'\\u00e9'", "'\\''", "'é'", "'ab'", "''", "'\\400'", "'\\U0001F600'", "'\\377'", "'\\z'"])],
    ])();
  }

  stringLiteral(): string {
    const r = this.rng;
    return r.weighted<() => string>([
      [5, () => JSON.stringify(r.pick([...MAP_KEYS, 'x', '', 'a b', 'spiffe://', '%d', '%s-%s', '2006-01-02', 'é']))],
      [2, () => JSON.stringify(r.pick(ODD_TEXT))],
      [0.5, () => r.pick(['"\\x41\\u00e9\\t"', '"\\101"', '"\\q"', '"\\xff"', '"\\u00"', '"\\\\"', '"\\""', '"\\a\\b\\f\\v"', '"\\U0001F600"', '"\\ud800"', '"\\377"'])],
      [2, () => `\`${r.pick(['raw', 'a\\nb', 'line\nbreak', '', '%v', '{', 'x"y'])}\``],
    ])();
  }

  literal(): string {
    return this.rng.weighted<() => string>([
      [4, () => this.number()],
      [5, () => this.stringLiteral()],
      [1, () => this.pick(['true', 'false'])],
      [0.3, () => 'nil'],
    ])();
  }

  // ---- fields ----

  /** A chain of field names from a value of type t: `.A.B`, with a method call's arguments when one ends it. */
  fields(t: GoType | undefined, scope: Scope, depth: number): string {
    let out = '';
    let type = t;
    const steps = this.rng.between(1, 4);
    for (let i = 0; i < steps; i++) {
      const step = this.fieldStep(type, scope, depth, i === steps - 1);
      out += `.${step.name}`;
      type = step.type;
      if (step.args !== undefined) return out + step.args;
      if (type === undefined || !(type.kind === 'struct' || type.kind === 'map' || type.kind === 'ptr')) break;
    }
    return out;
  }

  private fieldStep(
    t: GoType | undefined,
    scope: Scope,
    depth: number,
    last: boolean,
  ): { name: string; type: GoType | undefined; args?: string } {
    const r = this.rng;
    while (t !== undefined && t.kind === 'ptr') t = t.elem;
    if (r.chance(0.01) || t === undefined) {
      return { name: r.pick(['Name', 'Nope', 'name', 'app', 'Labels', 'Key', 'Value', 'UID', 'Unix', 'Time', 'String', 'x', 'Kind', 'Effect']), type: undefined };
    }
    if (t.kind === 'map') return { name: r.pick(MAP_KEYS.filter((k) => /^[A-Za-z_]\w*$/.test(k))), type: t.elem };
    if (t.kind !== 'struct') return { name: r.pick(['Name', 'Len', 'X']), type: undefined };
    if ((t.codec === 'metatime' || t.codec === 'gotime') && r.chance(0.7)) {
      const [name, args] = r.pick(TIME_METHODS);
      const type: GoType | undefined = name === 'UTC' || name === 'Local' || name === 'Add' ? t : undefined;
      if (args === 'none' || !last) return { name, type };
      return { name, type: undefined, args: ` ${this.methodArgs(args, scope, depth)}` };
    }
    const fields = t.fields.filter((f) => f.exported).map((f) => f.name);
    const methods = [...t.methods.values()].filter((m) => m.params.length === 0 && m.results.length === 1);
    if (methods.length > 0 && (fields.length === 0 || r.chance(0.15))) {
      const m = r.weighted<GoMethod>(methods.map((x) => [x.name.startsWith('Get') || x.name === 'String' ? 5 : 1, x]));
      return { name: m.name, type: m.results[0] };
    }
    if (fields.length === 0) return { name: r.pick(['Nope', 'X']), type: undefined };
    const name = r.pick(fields);
    return { name, type: t.lookup.get(name)?.at(-1)?.type };
  }

  private methodArgs(kind: string, scope: Scope, depth: number): string {
    const r = this.rng;
    switch (kind) {
      case 'layout':
        return r.chance(0.85) ? JSON.stringify(r.pick(LAYOUTS)) : this.arg(scope, depth + 1);
      case 'duration':
        return r.pick(['0', '1', '1000000000', '3600000000000', '-86400000000000', '7', '1.5', '"1h"', '.PodSpec.Priority', '(len "ab")']);
      case 'date':
        return `${r.between(-2, 3)} ${r.between(-13, 13)} ${r.between(-40, 40)}`;
      case 'time':
        return r.pick(['.NodeMeta.CreationTimestamp.Time', '.PodMeta.CreationTimestamp.Time', '.PodMeta.CreationTimestamp', '(.PodMeta.CreationTimestamp.UTC)', 'nil', '1']);
      case 'metatime':
        return r.pick(['.NodeMeta.CreationTimestamp', '.PodMeta.DeletionTimestamp', '.PodMeta.CreationTimestamp.Time', 'nil', '"x"']);
      default:
        return r.pick(['.PodMeta.CreationTimestamp.Location', '(.NodeMeta.CreationTimestamp.UTC.Location)', 'nil']);
    }
  }

  // ---- operands and pipelines ----

  private variable(scope: Scope): string {
    return this.pick(scope.vars);
  }

  /** An argument: a field, a variable, dot, a literal, or a parenthesized pipeline. */
  arg(scope: Scope, depth: number): string {
    this.size++;
    const r = this.rng;
    const deep = depth < 3 && this.room();
    return r.weighted<() => string>([
      [8, () => this.fields(TEMPLATE_DATA, scope, depth)],
      [3, () => (scope.dot !== undefined && r.chance(0.7) ? this.fields(scope.dot, scope, depth) : '.')],
      [2, () => this.variable(scope)],
      [1, () => `${this.variable(scope)}${this.fields(scope.vars.length > 1 ? undefined : TEMPLATE_DATA, scope, depth)}`],
      [6, () => this.literal()],
      [deep ? 5 : 0, () => `(${this.pipeline(scope, depth + 1)})`],
      [deep ? 1 : 0, () => `(${this.pipeline(scope, depth + 1)})${this.fields(undefined, scope, depth)}`],
      [0.5, () => this.pick(['print', 'html', 'js', 'urlquery', 'println'])],
    ])();
  }

  /** A printf format: text, verbs with flags, width, precision and argument indexes. */
  format(): string {
    const r = this.rng;
    let out = '';
    const parts = r.between(1, 3);
    for (let i = 0; i < parts; i++) {
      if (r.chance(0.3)) out += r.pick(['x', '-', ' ', 'id=', '%%', 'é', '/']);
      out += '%';
      out += r.some(['#', '0', '+', '-', ' '], 0.15).join('');
      if (r.chance(0.1)) out += `[${r.between(0, 3)}]`;
      if (r.chance(0.25)) out += r.chance(0.2) ? '*' : String(r.between(0, 12));
      if (r.chance(0.25)) out += `.${r.chance(0.15) ? '*' : r.chance(0.8) ? String(r.between(0, 12)) : ''}`;
      if (r.chance(0.08)) out += `[${r.between(0, 3)}]`;
      out += r.weighted([
        [8, 'v'],
        [5, 'd'],
        [6, 's'],
        [3, 'q'],
        [3, 'x'],
        [2, 'X'],
        [2, 'o'],
        [1, 'O'],
        [2, 'b'],
        [2, 'c'],
        [2, 'U'],
        [3, 'e'],
        [1, 'E'],
        [4, 'f'],
        [1, 'F'],
        [4, 'g'],
        [1, 'G'],
        [2, 't'],
        [3, 'T'],
        [1, 'p'],
        [1, 'w'],
        [1, '%'],
        [1, 'z'],
        [1, ''],
      ]);
    }
    return JSON.stringify(out);
  }

  /** A function call with arguments suited to the function, more often than not. */
  call(scope: Scope, depth: number, piped: boolean): string {
    const r = this.rng;
    const fn = r.weighted<string>([
      [6, 'printf'],
      [3, 'print'],
      [1, 'println'],
      [4, 'index'],
      [2, 'slice'],
      [3, 'len'],
      [3, 'eq'],
      [2, 'ne'],
      [2, 'lt'],
      [1, 'le'],
      [1, 'gt'],
      [1, 'ge'],
      [2, 'and'],
      [2, 'or'],
      [2, 'not'],
      [2, 'html'],
      [2, 'js'],
      [2, 'urlquery'],
      [1, 'call'],
    ]);
    const args: string[] = [];
    const n = (lo: number, hi: number): number => Math.max(0, r.between(lo, hi) - (piped ? 1 : 0));
    switch (fn) {
      case 'printf':
        if (!piped || r.chance(0.8)) args.push(r.chance(0.9) ? this.format() : this.arg(scope, depth));
        for (let i = n(0, 3); i > 0; i--) args.push(this.arg(scope, depth));
        break;
      case 'index':
        args.push(r.pick(['.PodMeta.Labels', '.PodMeta.Annotations', '.PodSpec.Containers', '.PodSpec.NodeSelector', '.NodeMeta.Labels', '.NodeSpec.PodCIDRs', '.PodMeta.Name', '.PodMeta.OwnerReferences']) );
        if (r.chance(0.2)) args[0] = this.arg(scope, depth);
        for (let i = n(1, 3) - 1; i >= 0; i--) args.push(r.chance(0.6) ? r.pick([...MAP_KEYS.map((k) => JSON.stringify(k)), '0', '1', '-1', '2', '100']) : this.arg(scope, depth));
        break;
      case 'slice':
        args.push(r.chance(0.7) ? r.pick(['.PodMeta.Name', '.PodMeta.Namespace', '"héllo"', '.PodSpec.Containers', '.NodeSpec.PodCIDRs', '.TrustDomain']) : this.arg(scope, depth));
        for (let i = r.between(0, 4); i > 0; i--) args.push(r.chance(0.8) ? String(r.between(-1, 6)) : this.arg(scope, depth));
        break;
      default: {
        const [lo, hi] = ARG_COUNTS[fn] ?? [0, 3];
        for (let i = n(lo, hi); i > 0; i--) args.push(this.arg(scope, depth));
        if (r.chance(0.05)) args.push(this.arg(scope, depth));
      }
    }
    return [fn, ...args].join(' ');
  }

  command(scope: Scope, depth: number, piped: boolean): string {
    const r = this.rng;
    return r.weighted<() => string>([
      [piped ? 0.3 : 6, () => this.arg(scope, depth)],
      [6, () => this.call(scope, depth, piped)],
      [piped ? 2 : 0, () => this.fields(TEMPLATE_DATA, scope, depth)],
    ])();
  }

  pipeline(scope: Scope, depth: number, declare = true): string {
    const r = this.rng;
    let out = '';
    if (declare && r.chance(0.12)) {
      const name = r.chance(0.7) ? r.pick(['$x', '$y', '$v']) : this.variable(scope);
      out += `${name} ${scope.vars.includes(name) && r.chance(0.5) ? '=' : ':='} `;
      if (!scope.vars.includes(name)) scope.vars.push(name);
    }
    const stages = r.weighted([
      [10, 1],
      [4, 2],
      [1, 3],
    ]);
    for (let i = 0; i < stages; i++) {
      if (i > 0) out += ` |${this.space()}`;
      out += this.command(scope, depth, i > 0);
    }
    return out;
  }

  // ---- actions and structure ----

  private open(): string {
    return this.rng.chance(0.15) ? `{{-${this.pick([' ', '\n', '\t'])}` : `{{${this.space()}`;
  }

  private close(): string {
    return this.rng.chance(0.15) ? `${this.pick([' ', '\n'])}-}}` : `${this.space()}}}`;
  }

  private text(): string {
    let out = '';
    for (let i = this.rng.between(1, 3); i > 0; i--) out += this.pick(ALL_TEXT);
    return out;
  }

  /** The template a `{{template}}` runs: mostly one the case defines, sometimes itself (recursion) or none. */
  private invoked(scope: Scope): string {
    return this.rng.weighted(scope.callable.map((name) => [name === 'T' ? 6 : name === 'sub' ? 3 : 1, name] as const));
  }

  /** A `{{define}}` or `{{block}}` body: T may invoke sub, the others nothing that is defined. */
  private definition(name: string, scope: Scope, depth: number): string {
    // 'none' is never defined: invoking it fails at execution, and cannot recurse.
    const callable = name === 'T' ? ['sub', 'none'] : ['none'];
    return this.list({ vars: ['$'], dot: undefined, inRange: false, templates: scope.templates, callable }, depth + 1);
  }

  /** Where a template invocation may send dot. */
  private templateArg(scope: Scope): string {
    return this.rng.chance(0.2) ? '' : ` ${this.arg(scope, 1)}`;
  }

  node(scope: Scope, depth: number, top: boolean): string {
    this.size++;
    const r = this.rng;
    const nested = depth < 3 && this.room();
    return r.weighted<() => string>([
      [6, () => this.text()],
      [10, () => `${this.open()}${this.pipeline(scope, 0)}${this.close()}`],
      [1, () => `{{/* ${this.pick(['c', '}}', ''])} */}}`],
      [1, () => `{{- /* trim */ -}}`],
      [nested ? 3 : 0, () => this.ifOrWith('if', scope, depth)],
      [nested ? 3 : 0, () => this.ifOrWith('with', scope, depth)],
      [nested ? 3 : 0, () => this.range(scope, depth)],
      [scope.inRange ? 2 : 0.1, () => `{{${r.pick(['break', 'continue'])}}}`],
      [top && nested ? 0.7 : 0.05, () => {
        const name = this.pick(scope.templates);
        return `{{define ${JSON.stringify(name)}}}${this.definition(name, scope, depth)}{{end}}`;
      }],
      [1, () => `{{template ${JSON.stringify(this.invoked(scope))}${this.templateArg(scope)}}}`],
      [nested && scope.callable.some((n) => n !== scope.templates[0]) ? 0.5 : 0, () => {
        // A block also invokes what it defines: only a template this place may call, and never the template itself.
        const name = this.pick(scope.callable.filter((n) => n !== scope.templates[0]));
        return `{{block ${JSON.stringify(name)} ${this.arg(scope, 1)}}}${this.definition(name, scope, depth)}{{end}}`;
      }],
    ])();
  }

  list(scope: Scope, depth: number): string {
    let out = '';
    for (let i = this.rng.between(depth === 0 ? 1 : 0, depth === 0 ? 4 : 2); i > 0; i--) out += this.node(scope, depth, depth === 0);
    return out;
  }

  private body(scope: Scope, depth: number, dot: GoType | undefined, inRange: boolean): string {
    // Variables declared in a body are gone after its end.
    return this.list({ vars: [...scope.vars], dot, inRange: inRange || scope.inRange, templates: scope.templates, callable: scope.callable }, depth + 1);
  }

  private ifOrWith(kind: 'if' | 'with', scope: Scope, depth: number): string {
    const r = this.rng;
    const inner: Scope = { ...scope, vars: [...scope.vars] };
    const pipe = this.pipeline(inner, 0);
    let out = `{{${kind} ${pipe}}}${this.body(inner, depth, kind === 'with' ? undefined : scope.dot, false)}`;
    while (r.chance(0.3)) {
      out += `{{else ${r.chance(0.95) ? kind : r.pick(['if', 'with'])} ${this.pipeline(inner, 0)}}}${this.body(inner, depth, scope.dot, false)}`;
    }
    if (r.chance(0.4)) out += `{{else}}${this.body(scope, depth, scope.dot, false)}`;
    return `${out}{{end}}`;
  }

  private range(scope: Scope, depth: number): string {
    const r = this.rng;
    const inner: Scope = { ...scope, vars: [...scope.vars] };
    const [source, elem] = r.weighted<readonly [string, GoType | undefined]>([
      [3, ['.PodSpec.Containers', undefined]],
      [2, ['.PodMeta.Labels', undefined]],
      [1, ['.PodMeta.Annotations', undefined]],
      [1, ['.NodeSpec.PodCIDRs', undefined]],
      [1, ['.NodeSpec.Taints', undefined]],
      [1, ['.PodMeta.OwnerReferences', undefined]],
      [2, [String(r.between(-1, 4)), undefined]],
      [1, ['.PodSpec.TerminationGracePeriodSeconds', undefined]],
      [1, ['.PodMeta.Finalizers', undefined]],
      [1, ['(index .PodSpec.Containers 0).Ports', undefined]],
      [1, ['.PodMeta.CreationTimestamp.Month', undefined]],
      [1, ['nil', undefined]],
    ]);
    let decl = '';
    const v = r.int(6);
    if (v === 1) decl = '$e := ';
    else if (v === 2) decl = '$i, $e := ';
    else if (v === 3 && inner.vars.length > 1) decl = `${r.pick(inner.vars)} = `;
    for (const name of decl.match(/\$\w+/g) ?? []) if (!inner.vars.includes(name)) inner.vars.push(name);
    let out = `{{range ${decl}${source}}}${this.body(inner, depth, elem, true)}`;
    if (r.chance(0.3)) out += `{{else}}${this.body(scope, depth, scope.dot, false)}`;
    return `${out}{{end}}`;
  }

  template(): string {
    const names = [this.name, 'T', 'sub', 'x'];
    // No recursion: Go needs 100,000 levels to give up, which takes minutes when each level formats
    // something big; corpus/quirks.json covers recursion.
    let out = this.list({ vars: ['$'], dot: TEMPLATE_DATA, inRange: false, templates: names, callable: ['T', 'sub', 'x'] }, 0);
    if (out.includes('{{template')) {
      // Usually define what is invoked, so that invocations get past execution.
      for (const name of ['T', 'sub']) {
        if (this.rng.chance(0.7)) out += `{{define "${name}"}}${this.definition(name, { vars: ['$'], dot: undefined, inRange: false, templates: names, callable: [] }, 0)}{{end}}`;
      }
    }
    return out;
  }
}

/** Random edits, for parse errors and near-misses. */
function mutate(rng: Rng, s: string): string {
  // Edits work on code points: the API server never sends half a surrogate pair.
  let out = Array.from(s);
  for (let i = rng.between(1, 3); i > 0; i--) {
    const at = rng.int(out.length + 1);
    out = rng.weighted<() => string[]>([
      [3, () => [...out.slice(0, at), ...out.slice(at + 1)]],
      [3, () => [...out.slice(0, at), rng.pick(['{', '}', '{{', '}}', '(', ')', '|', '$', '.', ':=', '=', ' ', '"', '`', "'", '-', ',', 'end', 'else', 'é', '\n']), ...out.slice(at)]],
      [1, () => out.slice(0, at)],
      [1, () => [...out.slice(0, at), ...out.slice(rng.int(out.length + 1))]],
    ])();
  }
  return out.join('');
}

/** Case `index` of the run seeded `seed`. */
export function fuzzCase(seed: number, index: number): RenderCase {
  const rng = new Rng(caseSeed(seed, index));
  const name = rng.weighted([
    [6, 'spiffeIDTemplate'],
    [2, 'dnsNameTemplate'],
    [1, 'workloadSelectorTemplate'],
    [2, 'customParentIDTemplate'],
  ]);
  let template = new Generator(rng, name).template();
  if (rng.chance(0.12)) template = mutate(rng, template);
  return { name, template, data: randomData(rng, name === 'customParentIDTemplate') };
}
