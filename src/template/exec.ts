/**
 * The executor: runs a parsed template over template values, shaped like Go's
 * text/template exec.go. A state holds the variables of one tree's run (in
 * the numbered slots the parser resolved them to), `$`, the `{{template}}`
 * depth and a pending `{{break}}` or `{{continue}}`; walk runs a node with a
 * dot, evalPipeline, evalCommand, evalFieldChain and evalFunction compute
 * values, printValue prints one.
 *
 * Each node is turned into a closure once, when the template is compiled, so
 * that a render does no dispatch on node kinds and finds every constant
 * (literals, sites for error messages, functions) already made. The closures
 * are the tree's nodes in executable form: there is no other way a template runs.
 *
 * Failures are ExecFaults naming the site (the node, as Go shows it) where Go
 * would report them; GoErrors from below are turned into ExecFaults at the
 * node that evaluated them.
 */

import type { ActionNode, CommandNode, ControlNode, IdentifierNode, Node, Operand, PipeNode, TemplateNode, VariableNode } from './ast.js';
import { nodeString } from './ast.js';
import { ExecFault, GoArgumentError, GoError, Unsupported } from './errors.js';
import type { Site } from './errors.js';
import type { Arg, Call, Cursor } from './eval.js';
import { Literal, fieldStep, idealConstant, valueOf } from './eval.js';
import { printAction } from './format.js';
import { ARITY, BUILTINS } from './funcs.js';
import { BOOL, INT, STRING, TEMPLATE_DATA } from './gotypes.js';
import type { GoField, GoType } from './gotypes.js';
import { MAX_RENDER_CHARS, MAX_RENDER_ITERATIONS, renderBudget } from './limits.js';
import type { ParsedTemplate } from './parser.js';
import { GoValue, NO_VALUE, bigOf, indirect, readInt, readItems, readObject, sortedKeys, truth } from './values.js';

/**
 * Go stops at 100,000 nested `{{template}}` calls; JavaScript's stack ends
 * earlier. Deeper recursion is refused as unsupported (docs/templates.md, "Documented limits").
 */
const MAX_TEMPLATE_DEPTH = 1000;

const BREAK = 1;
const CONTINUE = 2;

/** One run of one tree: Go's exec state. */
class State {
  /** A `{{break}}` or `{{continue}}` on its way to its range; 0 when none. */
  ctl = 0;

  constructor(
    /** The variables, by the slot the parser gave each; undefined where none is declared at this point. */
    readonly slots: (GoValue | undefined)[],
    /** `$` when the tree never assigns to it: the dot the tree was run with. */
    readonly root: GoValue,
    /** How many `{{template}}` invocations deep this run is. */
    readonly depth: number,
  ) {}
}

/** A node in executable form: runs it with a dot and returns what it prints. */
type Walk = (s: State, dot: GoValue) => string;
/** An expression in executable form: its value. */
type Eval = (s: State, dot: GoValue) => GoValue;
/** A command in executable form: its value, given the previous pipeline stage's (or undefined). */
type Command = (s: State, dot: GoValue, final: GoValue | undefined) => GoValue;
/** An argument: a literal as written (the parameter's type converts it), or a value. */
type ArgEval = (s: State, dot: GoValue) => Arg;

/** A tree in executable form; `body` is filled once every tree has a record, so that trees can invoke each other. */
interface TreeRun {
  readonly slotCount: number;
  readonly dollarSlot: number;
  body: Walk;
}

/** A compiled template's trees: run the main one with the data as dot. */
export interface Executable {
  run(dot: GoValue): string;
}

function site(pos: number, context: string): Site {
  return { pos, context };
}

function siteOf(node: Operand | CommandNode | ActionNode): Site {
  return site(node.pos, nodeString(node));
}

/** A GoError raised while evaluating the node at `at` becomes a fault there; faults from deeper nodes keep their own site. */
function atSite(at: Site, err: unknown): unknown {
  if (err instanceof GoError) return new ExecFault(at, err.message, err instanceof Unsupported);
  return err;
}

/**
 * Counts output against the render's budget (limits.ts), so no template can
 * grow a string without bound. Go has no such bound: going over it is a
 * documented limit, so the error is marked unsupported.
 */
function spend(text: string): string {
  renderBudget.chars += text.length;
  if (renderBudget.chars > MAX_RENDER_CHARS) throw new Unsupported(`render output exceeds the limit of ${MAX_RENDER_CHARS} characters`);
  return text;
}

function spendAt(at: Site, text: string): string {
  try {
    return spend(text);
  } catch (err) {
    throw atSite(at, err);
  }
}

function resetSlots(slots: (GoValue | undefined)[], lo: number, hi: number): void {
  for (let i = lo; i < hi; i++) slots[i] = undefined;
}

/** Go's printValue for an action: the value as fmt prints it, counted against the output budget. */
function printValue(at: Site, value: GoValue): string {
  try {
    return spend(printAction(value));
  } catch (err) {
    throw atSite(at, err);
  }
}

// One cursor for all field walks: renders never run concurrently, and a method a walk calls does not walk.
const cursor: Cursor = { t: undefined, v: undefined, addr: false, holder: undefined, key: undefined };

/** `names` walked from `recv`; the last step gets `call`, the arguments a method would take. */
function walkFields(recv: GoValue, names: readonly string[], call: Call | undefined): GoValue {
  cursor.t = recv.t;
  cursor.v = recv.v;
  cursor.addr = recv.addr;
  cursor.holder = recv.holder;
  cursor.key = recv.key;
  const last = names.length - 1;
  for (let i = 0; i < last; i++) fieldStep(cursor, names[i]!, undefined);
  if (last >= 0) fieldStep(cursor, names[last]!, call);
  return valueOf(cursor);
}

/**
 * The JSON keys from the template data to a value of type `want`, when every
 * step of `idents` is a declared field of a JSON object; undefined otherwise.
 * Such a chain, over data made of own properties of plain objects ending in a
 * JSON string, is read without Go's machinery (see plainPrint).
 */
function jsonPath(idents: readonly string[], want: (t: GoType) => boolean): string[] | undefined {
  let t: GoType = TEMPLATE_DATA;
  const path: string[] = [];
  for (const name of idents) {
    if (t.kind === 'ptr') t = t.elem;
    // Methods come before fields in Go; a plain step is a declared field of a JSON object.
    if (t.kind !== 'struct' || t.codec !== 'object' || t.methods.has(name)) return undefined;
    const field: GoField | undefined = t.fields.find((f) => f.name === name);
    if (field === undefined || field.embedded || !field.exported || field.json === '-') return undefined;
    path.push(field.json);
    t = field.type;
  }
  return want(t) ? path : undefined;
}

/** The string at `path` in JSON data, or undefined when any step is not an own property of an object or the end is not a string. */
function readPlain(data: unknown, path: readonly string[]): string | undefined {
  let v = data;
  for (const key of path) {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return typeof v === 'string' ? v : undefined;
}

// Named string types print through fmt like strings, unless they have a String() method.
const isString = (t: GoType) => t.kind === 'string' && t.methods.size === 0;
const isStringMap = (t: GoType) => t.kind === 'map' && t.key.name === 'string' && isString(t.elem);

/**
 * For the actions nearly every template consists of, `{{ .A.B }}` and
 * `{{ index .A.B "key" }}` from the template data to a string: the JSON path
 * of the string, which printValue of evalCommand would print as it is. Where
 * the data is anything else (a nil pointer, an absent field or key, a value
 * of another JSON type, dot not the template data) the action runs as any other.
 */
interface PlainPrint {
  readonly path: readonly string[];
  /** Where the string is counted against the output budget before it is printed: index's result is, as any function's. */
  readonly returnedAt: Site | undefined;
}

function plainPrint(pipe: PipeNode): PlainPrint | undefined {
  if (pipe.decl.length > 0 || pipe.cmds.length !== 1) return undefined;
  const cmd = pipe.cmds[0]!;
  const [first, second, third, ...more] = cmd.args;
  if (first?.kind === 'field' && second === undefined) {
    const path = jsonPath(first.idents, isString);
    return path && { path, returnedAt: undefined };
  }
  if (first?.kind === 'identifier' && first.name === 'index' && second?.kind === 'field' && third?.kind === 'string' && more.length === 0) {
    const path = jsonPath(second.idents, isStringMap);
    return path && { path: [...path, third.text], returnedAt: siteOf(cmd) };
  }
  return undefined;
}

/** Builds the executable form of a parsed template's trees. */
class Compiler {
  private readonly trees = new Map<string, TreeRun>();

  constructor(parsed: ParsedTemplate) {
    for (const [name, tree] of parsed.trees) this.trees.set(name, { slotCount: tree.slotCount, dollarSlot: tree.dollarSlot, body: () => '' });
    for (const [name, tree] of parsed.trees) this.trees.get(name)!.body = this.walkList(tree.root);
  }

  executable(name: string): Executable {
    const main = this.trees.get(name) ?? this.trees.values().next().value;
    if (main === undefined) return { run: () => '' };
    return { run: (dot) => runTree(main, dot, 0) };
  }

  // ---- walk ----

  private walkList(nodes: readonly Node[]): Walk {
    const walks = nodes.map((n) => this.walk(n));
    if (walks.length === 1) return walks[0]!;
    return (s, dot) => {
      let out = '';
      for (let i = 0; i < walks.length; i++) {
        out += walks[i]!(s, dot);
        // A break or continue ends the list; its range takes it from there.
        if (s.ctl !== 0) break;
      }
      return out;
    };
  }

  private walk(n: Node): Walk {
    switch (n.kind) {
      case 'text': {
        const text = n.text;
        return () => text;
      }
      case 'action':
        return this.walkAction(n);
      case 'if':
      case 'with':
        return this.walkIfOrWith(n);
      case 'range':
        return this.walkRange(n);
      case 'break':
        return (s) => {
          s.ctl = BREAK;
          return '';
        };
      case 'continue':
        return (s) => {
          s.ctl = CONTINUE;
          return '';
        };
      case 'template':
        return this.walkTemplate(n);
    }
  }

  private walkAction(n: ActionNode): Walk {
    const pipe = n.pipe;
    const value = this.evalPipeline(pipe, true);
    // An action that declares variables prints nothing.
    if (pipe.decl.length > 0) {
      return (s, dot) => {
        value(s, dot);
        return '';
      };
    }
    // A lone field chain is printed at its own site, as the value it is; anything else at the action's.
    const [only, ...others] = pipe.cmds.length === 1 ? pipe.cmds[0]!.args : [];
    const lone = others.length === 0 && (only?.kind === 'field' || (only?.kind === 'variable' && only.fields.length > 0));
    const at = lone ? siteOf(only) : siteOf(n);
    const plain = plainPrint(pipe);
    if (plain !== undefined) {
      const { path, returnedAt } = plain;
      return (s, dot) => {
        const text = dot.t === TEMPLATE_DATA ? readPlain(dot.v, path) : undefined;
        if (text === undefined) return printValue(at, value(s, dot));
        if (returnedAt !== undefined) spendAt(returnedAt, text);
        return spendAt(at, text);
      };
    }
    return (s, dot) => printValue(at, value(s, dot));
  }

  private walkIfOrWith(n: ControlNode): Walk {
    const value = this.evalPipeline(n.pipe, true);
    const list = this.walkList(n.list);
    const elseList = n.elseList === undefined ? undefined : this.walkList(n.elseList);
    const { lo, hi } = n.scope;
    const isWith = n.kind === 'with';
    return (s, dot) => {
      const v = value(s, dot);
      let out: string;
      if (truth(v)) out = list(s, isWith ? v : dot);
      else out = elseList === undefined ? '' : elseList(s, dot);
      // Variables declared anywhere in the construct go out of scope at its end.
      resetSlots(s.slots, lo, hi);
      return out;
    };
  }

  /**
   * `{{range}}` over a slice, a map (in sorted key order) or an integer. Go
   * binds the declared variables to the pipeline's value first; each
   * iteration rebinds them to the key (with two variables) and the element.
   */
  private walkRange(n: ControlNode): Walk {
    const pipe = n.pipe;
    const value = this.evalPipeline(pipe, false);
    const at = site(n.pos, nodeString(pipe));
    const decl = pipe.decl;
    const isAssign = pipe.isAssign;
    const first = decl[0];
    const firstSite = first === undefined ? undefined : site(first.pos, first.name);
    const otherSites = decl.slice(1).map((d) => site(d.pos, d.name));
    const elem = decl[decl.length - 1];
    const elemSite = elem === undefined ? undefined : site(elem.pos, elem.name);
    const key = decl.length > 1 ? decl[0] : undefined;
    const keySite = key === undefined ? undefined : site(key.pos, key.name);
    const nvars = decl.length;
    const list = this.walkList(n.list);
    const elseList = n.elseList === undefined ? undefined : this.walkList(n.elseList);
    const { lo, hi } = n.scope;
    const body = n.bodyScope;
    return (s, dot) => {
      let x = value(s, dot);
      const slots = s.slots;
      if (first !== undefined) {
        setVariable(firstSite!, slots, first.slot, isAssign, x);
        x = getVariable(firstSite!, slots, first.slot);
        for (let i = 1; i < decl.length; i++) setVariable(otherSites[i - 1]!, slots, decl[i]!.slot, isAssign, x);
      }
      let out = '';
      let ran = false;
      let stopped = false;
      const iterate = (k: GoValue, e: GoValue): void => {
        if (++renderBudget.iterations > MAX_RENDER_ITERATIONS) throw new Unsupported(`range exceeds the limit of ${MAX_RENDER_ITERATIONS} iterations in one render`);
        ran = true;
        if (key !== undefined) setVariable(keySite!, slots, key.slot, isAssign, k);
        if (elem !== undefined) setVariable(elemSite!, slots, elem.slot, isAssign, e);
        out += spend(list(s, e));
        resetSlots(slots, body.lo, body.hi);
        stopped = s.ctl === BREAK;
        s.ctl = 0;
      };
      const v = indirect(x);
      const t = v.t;
      try {
        if (t === undefined) {
          // An invalid value (a missing key) ranges like an empty map.
        } else if (t.kind === 'slice') {
          const items = readItems(v.v);
          for (let i = 0; i < items.length && !stopped; i++) iterate(new GoValue(INT, i), new GoValue(t.elem, items[i], true));
        } else if (t.kind === 'map') {
          const obj = readObject(v.v);
          if (obj !== undefined) {
            for (const k of sortedKeys(obj)) {
              if (stopped) break;
              iterate(new GoValue(t.key, k), new GoValue(t.elem, obj[k]));
            }
          }
        } else if (t.kind === 'int' || t.kind === 'uint') {
          if (nvars > 1) throw new GoError(`can't use ${printAction(v)} to iterate over more than one variable`);
          const count = bigOf(readInt(v.v));
          for (let i = 0n; i < count && !stopped; i++) iterate(NO_VALUE, new GoValue(t, i <= 0x1fffffffffffffn ? Number(i) : i));
        } else {
          let shown: string;
          try {
            shown = printAction(v);
          } catch {
            shown = `a value of type ${t.name}`;
          }
          throw new GoError(`range can't iterate over ${shown}`);
        }
      } catch (err) {
        throw atSite(at, err);
      }
      if (!ran && elseList !== undefined) out = elseList(s, dot);
      resetSlots(slots, lo, hi);
      return out;
    };
  }

  /** `{{template "name" value}}`: runs the named tree with the value as dot and `$`, and no variables of ours. */
  private walkTemplate(n: TemplateNode): Walk {
    const at = site(n.pos, `{{template ${JSON.stringify(n.name)}${n.pipe === undefined ? '' : ` ${nodeString(n.pipe)}`}}}`);
    const tree = this.trees.get(n.name);
    // Go looks the template up before evaluating the pipeline.
    if (tree === undefined) return fail(at, `template ${JSON.stringify(n.name)} not defined`);
    const value = n.pipe === undefined ? undefined : this.evalPipeline(n.pipe, true);
    return (s, dot) => {
      const v = value === undefined ? NO_VALUE : value(s, dot);
      if (s.depth >= MAX_TEMPLATE_DEPTH) throw new ExecFault(at, `exceeded maximum template depth (${MAX_TEMPLATE_DEPTH}; Go allows 100000)`, true);
      return runTree(tree, v, s.depth + 1);
    };
  }

  // ---- evaluation ----

  /** The value of a pipeline; with `declare`, its declared variables are set to it first. */
  private evalPipeline(pipe: PipeNode, declare: boolean): Eval {
    const commands = pipe.cmds.map((c) => this.evalCommand(c));
    if (commands.length === 0) throw new Error('template compiler: empty pipeline');
    const run: Eval =
      commands.length === 1
        ? (s, dot) => commands[0]!(s, dot, undefined)
        : (s, dot) => {
            let v: GoValue | undefined;
            for (let i = 0; i < commands.length; i++) v = commands[i]!(s, dot, v);
            return v!;
          };
    const [first, ...rest] = pipe.decl;
    if (!declare || first === undefined) return run;
    // Every declared variable gets the pipeline's value.
    const firstSite = site(first.pos, first.name);
    const restSites = rest.map((d) => site(d.pos, d.name));
    const isAssign = pipe.isAssign;
    return (s, dot) => {
      setVariable(firstSite, s.slots, first.slot, isAssign, run(s, dot));
      const v = getVariable(firstSite, s.slots, first.slot);
      for (let i = 0; i < rest.length; i++) setVariable(restSites[i]!, s.slots, rest[i]!.slot, isAssign, v);
      return v;
    };
  }

  private evalCommand(cmd: CommandNode): Command {
    const [head, ...rest] = cmd.args;
    if (head === undefined) throw new Error('template compiler: empty command');
    const hasArgs = rest.length > 0;
    // Go evaluates the previous pipeline stage before it finds out the command can't take it.
    const notAFunction = fail(siteOf(head), `can't give argument to non-function ${nodeString(head)}`);
    switch (head.kind) {
      case 'field':
        return this.evalFieldChain(head, (_s, dot) => dot, head.idents, rest);
      case 'chain': {
        const recv = head.node;
        if (recv.kind === 'nil') return fail(siteOf(head), `indirection through explicit nil in ${nodeString(head)}`);
        return this.evalFieldChain(head, this.evalOperand(recv), head.fields, rest);
      }
      case 'variable': {
        if (head.fields.length > 0) return this.evalFieldChain(head, this.evalVariable(head), head.fields, rest);
        const read = this.evalVariable(head);
        const at = siteOf(head);
        const message = `can't give argument to non-function ${head.name}`;
        return (s, dot, final) => {
          const v = read(s, dot);
          if (hasArgs || final !== undefined) throw new ExecFault(at, message);
          return v;
        };
      }
      case 'identifier':
        return this.evalFunction(head, cmd, rest);
      case 'nil': {
        if (hasArgs) return notAFunction;
        const notACommand = fail(siteOf(head), 'nil is not a command');
        return (_s, _dot, final) => (final === undefined ? notACommand() : notAFunction());
      }
      default: {
        if (hasArgs) return notAFunction;
        const value = this.evalOperand(head);
        return (s, dot, final) => (final === undefined ? value(s, dot) : notAFunction());
      }
    }
  }

  /**
   * `.A.B args`, `$x.A.B args` or `(pipeline).A.B args`: the arguments go to
   * the last step, which only a method accepts. Go evaluates the piped value
   * first, then the receiver, then the arguments.
   */
  private evalFieldChain(node: Operand, recv: Eval, names: readonly string[], args: readonly Operand[]): Command {
    const at = siteOf(node);
    const argEvals = args.map((a) => this.evalArg(a));
    return (s, dot, final) => {
      const receiver = recv(s, dot);
      let call: Call | undefined;
      if (argEvals.length > 0 || final !== undefined) {
        const values: Arg[] = [];
        for (let i = 0; i < argEvals.length; i++) values.push(argEvals[i]!(s, dot));
        call = { args: values, final };
      }
      try {
        return walkFields(receiver, names, call);
      } catch (err) {
        throw atSite(at, err);
      }
    };
  }

  private evalVariable(v: VariableNode): Eval {
    if (v.slot === -1) return (s) => s.root;
    const at = site(v.pos, v.name);
    const slot = v.slot;
    return (s) => getVariable(at, s.slots, slot);
  }

  /** An argument: a literal as written, for the parameter to convert; other operands as values. */
  private evalArg(node: Operand): ArgEval {
    let lit: Literal | undefined;
    switch (node.kind) {
      case 'bool':
        lit = new Literal('bool', String(node.value), node.value, '', undefined);
        break;
      case 'string':
        lit = new Literal('string', node.quoted, false, node.text, undefined);
        break;
      case 'number':
        lit = new Literal('number', node.text, false, '', node.num);
        break;
      case 'nil':
        lit = new Literal('nil', 'nil', false, '', undefined);
        break;
      default:
        return this.evalOperand(node);
    }
    const constant = lit;
    return () => constant;
  }

  /** An operand used as a value (an argument of no particular type, or a command without arguments). */
  private evalOperand(node: Operand): Eval {
    switch (node.kind) {
      case 'dot':
        return (_s, dot) => dot;
      case 'nil':
        return () => NO_VALUE;
      case 'bool':
        return constant(new GoValue(BOOL, node.value));
      case 'number': {
        // Go's idealConstant, which fails (at execution) for an integer beyond int64.
        let value: GoValue;
        try {
          value = idealConstant(node.text, node.num);
        } catch (err) {
          if (err instanceof GoError) return fail(siteOf(node), err.message);
          throw err;
        }
        return constant(value);
      }
      case 'string':
        return constant(new GoValue(STRING, node.text));
      case 'field':
        return noFinal(this.evalFieldChain(node, (_s, dot) => dot, node.idents, []));
      case 'chain': {
        const recv = node.node;
        if (recv.kind === 'nil') return fail(siteOf(node), `indirection through explicit nil in ${nodeString(node)}`);
        return noFinal(this.evalFieldChain(node, this.evalOperand(recv), node.fields, []));
      }
      case 'variable':
        return node.fields.length > 0 ? noFinal(this.evalFieldChain(node, this.evalVariable(node), node.fields, [])) : this.evalVariable(node);
      case 'identifier':
        return noFinal(this.evalFunction(node, node, []));
      case 'pipe':
        return this.evalPipeline(node, true);
    }
  }

  /**
   * A call of one of Go's builtin functions. Go checks the number of
   * arguments before it evaluates any; `and` and `or` evaluate theirs only
   * until one decides the result.
   */
  private evalFunction(ident: IdentifierNode, cmd: CommandNode | IdentifierNode, args: readonly Operand[]): Command {
    const name = ident.name;
    const arity = ARITY.get(name);
    if (arity === undefined) throw new Error(`template compiler: no arity for ${name}`);
    const identSite = siteOf(ident);
    const countProblem = (n: number): string | undefined => {
      if (arity.variadic && n < arity.min) return `wrong number of args for ${name}: want at least ${arity.min} got ${args.length}`;
      if (!arity.variadic && n !== arity.min) return `wrong number of args for ${name}: want ${arity.min} got ${n}`;
      return undefined;
    };
    const withoutFinal = countProblem(args.length);
    const withFinalArg = countProblem(args.length + 1);
    const at = siteOf(cmd);
    const checked = (run: Command): Command => {
      if (withoutFinal === undefined && withFinalArg === undefined) return run;
      return (s, dot, final) => {
        const problem = final === undefined ? withoutFinal : withFinalArg;
        if (problem !== undefined) throw new ExecFault(identSite, problem);
        return run(s, dot, final);
      };
    };
    if (name === 'and' || name === 'or') return checked(this.evalAndOr(name === 'or', args));
    const argEvals = args.map((a) => this.evalArg(a));
    // Go names the callee by its source text (the piped value's, when there is no argument).
    const callee = name === 'call' ? new GoValue(STRING, args[0] === undefined ? '' : nodeString(args[0])) : undefined;
    const builtin = BUILTINS.get(name);
    return checked((s, dot, final) => {
      const values: Arg[] = [];
      if (callee !== undefined) values.push(callee);
      for (let i = 0; i < argEvals.length; i++) values.push(argEvals[i]!(s, dot));
      if (final !== undefined) values.push(final);
      if (builtin === undefined) throw new ExecFault(at, `${JSON.stringify(name)} is not a defined function`);
      let result: GoValue;
      try {
        result = builtin(values);
      } catch (err) {
        if (err instanceof GoArgumentError) throw new ExecFault(at, err.message);
        if (err instanceof GoError) throw new ExecFault(at, `error calling ${name}: ${err.message}`, err instanceof Unsupported);
        throw err;
      }
      // printf's width alone can make a megabyte; a range can repeat it.
      if (typeof result.v === 'string') spendAt(at, result.v);
      return result;
    });
  }

  /** `and`/`or`: the first operand that decides the result, or the last; a piped value is the last operand. */
  private evalAndOr(isOr: boolean, args: readonly Operand[]): Command {
    const operands = args.map((a) => this.evalOperand(a));
    return (s, dot, final) => {
      let v: GoValue | undefined;
      for (let i = 0; i < operands.length; i++) {
        v = operands[i]!(s, dot);
        if (truth(v) === isOr) return v;
      }
      return final ?? v!;
    };
  }
}

function runTree(tree: TreeRun, dot: GoValue, depth: number): string {
  const slots = new Array<GoValue | undefined>(tree.slotCount);
  if (tree.dollarSlot >= 0) slots[tree.dollarSlot] = dot;
  return tree.body(new State(slots, dot, depth), dot);
}

function getVariable(at: Site, slots: readonly (GoValue | undefined)[], slot: number): GoValue {
  const value = slots[slot];
  if (value === undefined) throw new ExecFault(at, `undefined variable: ${at.context}`);
  return value;
}

/** `$x := v` declares; `$x = v` needs the variable to exist at this point. */
function setVariable(at: Site, slots: (GoValue | undefined)[], slot: number, isAssign: boolean, value: GoValue): void {
  if (isAssign && slots[slot] === undefined) throw new ExecFault(at, `undefined variable: ${at.context}`);
  slots[slot] = value;
}

function constant(value: GoValue): Eval {
  return () => value;
}

/** A node, expression or command that always fails the same way: a construct Go rejects only when it runs it. */
function fail(at: Site, message: string): () => never {
  return () => {
    throw new ExecFault(at, message);
  };
}

function noFinal(command: Command): Eval {
  return (s, dot) => command(s, dot, undefined);
}

/** The executable form of a parsed template, running the tree named `name`. */
export function compileTrees(parsed: ParsedTemplate, name: string): Executable {
  return new Compiler(parsed).executable(name);
}
