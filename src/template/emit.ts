/**
 * Compiles a parsed Go template to Handlebars source for the helpers in
 * helpers.ts: one Handlebars template per tree (the main one, each
 * `{{define}}` and `{{block}}`), sharing one table of constants and sites.
 *
 * - Field chains become `(field site recv "A" "B")` (or `{{pf ...}}` when an
 *   action prints one directly); the names are Go identifiers, so they are
 *   always safe Handlebars string literals, and map keys never become paths.
 *   A method's arguments follow the names, after a count.
 * - Literals, and text Handlebars would misread (braces, backslashes), live in
 *   a per-template constant table passed as `@k` and are referenced as `@k.[n]`.
 *   A literal passed to a function or method travels as written (a Literal),
 *   because Go converts it to the parameter's type at the call.
 * - `if`/`with`/`range` become the goIf/goWith/goRange block helpers;
 *   `{{template}}` calls the invoked tree's Handlebars template through `fn`.
 * - Variables live in numbered slots passed as `@v`. Declarations and the
 *   lazily evaluated `and`/`or` are computed by statements placed just before
 *   the action or block that uses them ("pre" statements), writing slots that
 *   the expression then reads; an `and`/`or` operand's own pre statements go
 *   inside the block that evaluates that operand, so laziness is kept.
 * - `{{break}}` and `{{continue}}` set their range's control slot; whatever
 *   follows them in a range body is wrapped in `{{#goIf -1 ...}}` blocks that
 *   render only while no such slot is set, and goRange stops or goes on
 *   accordingly.
 */

import type { ActionNode, CommandNode, ControlNode, IdentifierNode, Node, Operand, PipeNode, Tree, VariableNode } from './ast.js';
import { nodeString } from './ast.js';
import { GoError } from './errors.js';
import { Literal, idealConstant } from './eval.js';
import { ARITY } from './funcs.js';
import { TEMPLATE } from './helpers.js';
import { BOOL, STRING } from './gotypes.js';
import type { ParsedTemplate } from './parser.js';
import { GoValue, NO_VALUE } from './values.js';

export interface Site {
  /** Offset of the node in the Go template source. */
  readonly pos: number;
  /** The node as Go prints it in error messages. */
  readonly context: string;
}

export interface EmittedTree {
  readonly name: string;
  readonly source: string;
  /** Size of the `@v` slot array; 0 when the tree needs none. */
  readonly slotCount: number;
  /** The slot to start with the data in (`$` is assigned to), or -1. */
  readonly dollarSlot: number;
}

export interface EmittedTemplate {
  /** The trees in invocation-index order; the one executed first is `main`. */
  readonly trees: readonly EmittedTree[];
  readonly main: number;
  /** Values referenced as `@k.[n]`. */
  readonly constants: readonly unknown[];
  readonly sites: readonly Site[];
}

/** Text Handlebars copies verbatim: no mustache can start or end inside it, and no escape precedes one. */
const PLAIN_TEXT = /^[^{}\\\0]*$/;

const SLOTS = '@v';

/** The range control slots a node may set: those of break/continue it contains, outside ranges of its own. */
function stops(n: Node): number[] {
  switch (n.kind) {
    case 'break':
    case 'continue':
      return [n.control.slot];
    case 'if':
    case 'with':
      return [...n.list.flatMap(stops), ...(n.elseList ?? []).flatMap(stops)];
    case 'range':
      // A range's own body breaks only itself; its else list runs in the enclosing range.
      return (n.elseList ?? []).flatMap(stops);
    default:
      return [];
  }
}

class Emitter {
  private readonly constants: unknown[] = [];
  private readonly constantIndex = new Map<string, number>();
  private readonly sites: Site[] = [];
  private readonly treeIndex = new Map<string, number>();
  private slotCount = 0;

  constructor(private readonly parsed: ParsedTemplate) {
    let i = 0;
    for (const name of parsed.trees.keys()) this.treeIndex.set(name, i++);
  }

  run(): EmittedTemplate {
    const trees = [...this.parsed.trees.values()].map((tree) => this.tree(tree));
    return { trees, main: this.treeIndex.get(this.parsed.name) ?? 0, constants: this.constants, sites: this.sites };
  }

  private tree(tree: Tree): EmittedTree {
    this.slotCount = tree.slotCount;
    const source = this.list(tree.root);
    return { name: tree.name, source, slotCount: this.slotCount, dollarSlot: tree.dollarSlot };
  }

  // ---- tables ----

  private site(pos: number, context: string): number {
    this.sites.push({ pos, context });
    return this.sites.length - 1;
  }

  private siteOf(node: Operand | CommandNode | ActionNode): number {
    return this.site(node.pos, nodeString(node));
  }

  private constant(key: string, make: () => unknown): string {
    let i = this.constantIndex.get(key);
    if (i === undefined) {
      i = this.constants.push(make()) - 1;
      this.constantIndex.set(key, i);
    }
    return `@k.[${i}]`;
  }

  private newSlot(): number {
    return this.slotCount++;
  }

  // ---- statements ----

  private list(nodes: readonly Node[]): string {
    let out = '';
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      out += this.node(n);
      const slots = [...new Set(stops(n))];
      if (slots.length > 0 && i + 1 < nodes.length) {
        // The rest of the list runs only if this node did not break or continue.
        return `${out}{{#goIf -1 ${SLOTS} ${slots.join(' ')}}}${this.list(nodes.slice(i + 1))}{{/goIf}}`;
      }
    }
    return out;
  }

  private node(n: Node): string {
    switch (n.kind) {
      case 'text':
        return PLAIN_TEXT.test(n.text) ? n.text : `{{${this.constant(`text:${n.text}`, () => n.text)}}}`;
      case 'action':
        return this.action(n);
      case 'if':
      case 'with':
      case 'range':
        return this.control(n);
      case 'break':
        return `{{setv 0 ${SLOTS} ${n.control.slot} "" false 1}}`;
      case 'continue':
        return `{{setv 0 ${SLOTS} ${n.control.slot} "" false 2}}`;
      case 'template': {
        const site = this.site(n.pos, `{{template ${JSON.stringify(n.name)}${n.pipe === undefined ? '' : ` ${nodeString(n.pipe)}`}}}`);
        const index = this.treeIndex.get(n.name);
        // Go looks the template up before evaluating the pipeline.
        if (index === undefined) return `{{fail ${site} ${this.constant(`text:template ${JSON.stringify(n.name)} not defined`, () => `template ${JSON.stringify(n.name)} not defined`)}}}`;
        const pre: string[] = [];
        const value = n.pipe === undefined ? this.constant('nil', () => NO_VALUE) : this.pipeValue(n.pipe, pre, true);
        return `${pre.join('')}{{fn ${site} "${TEMPLATE}" ${index} ${value}}}`;
      }
    }
  }

  private action(n: ActionNode): string {
    const pipe = n.pipe;
    const pre: string[] = [];
    if (pipe.decl.length > 0) {
      // Declarations are set by pipeValue; an action that declares prints nothing.
      this.pipeValue(pipe, pre, true);
      return pre.join('');
    }
    const [cmd] = pipe.cmds;
    const [only] = cmd?.args ?? [];
    if (pipe.cmds.length === 1 && cmd?.args.length === 1 && only !== undefined) {
      // The common `{{ .A.B }}` prints in a single helper call.
      if (only.kind === 'field') return `{{pf ${this.siteOf(only)} this${names(only.idents)}}}`;
      if (only.kind === 'variable' && only.fields.length > 0) {
        return `{{pf ${this.siteOf(only)} ${this.variable(only)}${names(only.fields)}}}`;
      }
    }
    const value = this.pipeValue(pipe, pre, false);
    return `${pre.join('')}{{out ${this.siteOf(n)} ${value}}}`;
  }

  private control(n: ControlNode): string {
    const pre: string[] = [];
    const { decl, isAssign } = n.pipe;
    let value = this.pipeValue(n.pipe, pre, n.kind !== 'range');
    const site = this.site(n.pos, nodeString(n.pipe));
    let bodyPrefix = '';
    if (n.kind === 'range' && decl.length > 0) {
      // Go binds the declared variables to the pipeline's value first; range then rebinds them per element.
      const [first] = decl;
      if (first !== undefined) {
        const firstSite = this.site(first.pos, first.name);
        pre.push(`{{setv ${firstSite} ${SLOTS} ${first.slot} "${first.name}" ${isAssign} ${value}}}`);
        value = `(getv ${firstSite} ${SLOTS} ${first.slot} "${first.name}")`;
        for (const d of decl.slice(1)) {
          pre.push(`{{setv ${this.site(d.pos, d.name)} ${SLOTS} ${d.slot} "${d.name}" ${isAssign} ${value}}}`);
        }
      }
      const elem = decl[decl.length - 1];
      const key = decl.length > 1 ? decl[0] : undefined;
      if (key !== undefined) bodyPrefix += `{{setv ${this.site(key.pos, key.name)} ${SLOTS} ${key.slot} "${key.name}" ${isAssign} @key}}`;
      if (elem !== undefined) bodyPrefix += `{{setv ${this.site(elem.pos, elem.name)} ${SLOTS} ${elem.slot} "${elem.name}" ${isAssign} this}}`;
    }
    const scoped = n.scope.hi > n.scope.lo;
    let open: string;
    let helper: string;
    if (n.kind === 'range') {
      helper = 'goRange';
      const control = n.control?.slot ?? -1;
      const scope = scoped || control >= 0 ? ` ${SLOTS} ${n.scope.lo} ${n.bodyScope.lo} ${n.bodyScope.hi} ${n.scope.hi} ${control}` : '';
      open = `{{#goRange ${site} ${value} ${decl.length}${scope}}}`;
    } else {
      helper = n.kind === 'if' ? 'goIf' : 'goWith';
      const scope = scoped ? ` ${SLOTS} ${n.scope.lo} ${n.scope.hi}` : '';
      open = `{{#${helper} ${site} ${value}${scope}}}`;
    }
    const elsePart = n.elseList === undefined ? '' : `{{else}}${this.list(n.elseList)}`;
    return `${pre.join('')}${open}${bodyPrefix}${this.list(n.list)}${elsePart}{{/${helper}}}`;
  }

  // ---- expressions ----

  /** The value of a pipeline; statements it needs first (its declarations, if `declare`) are appended to `pre`. */
  private pipeValue(pipe: PipeNode, pre: string[], declare: boolean): string {
    let value: string | undefined;
    for (const cmd of pipe.cmds) value = this.command(cmd, value, pre);
    if (value === undefined) throw new Error('template compiler: empty pipeline');
    if (!declare || pipe.decl.length === 0) return value;
    // Every declared variable gets the pipeline's value (a range rebinds them per element).
    const [first, ...rest] = pipe.decl;
    const firstSite = this.site(first!.pos, first!.name);
    pre.push(`{{setv ${firstSite} ${SLOTS} ${first!.slot} "${first!.name}" ${pipe.isAssign} ${value}}}`);
    const read = `(getv ${firstSite} ${SLOTS} ${first!.slot} "${first!.name}")`;
    for (const d of rest) pre.push(`{{setv ${this.site(d.pos, d.name)} ${SLOTS} ${d.slot} "${d.name}" ${pipe.isAssign} ${read}}}`);
    return read;
  }

  private command(cmd: CommandNode, final: string | undefined, pre: string[]): string {
    const [head, ...rest] = cmd.args;
    if (head === undefined) throw new Error('template compiler: empty command');
    const nargs = rest.length + (final === undefined ? 0 : 1);
    const finalArg = final === undefined ? '' : ` ${final}`;
    // Go evaluates the previous pipeline stage before it finds out the command can't take it.
    const notAFunction = (): string =>
      this.fail(this.siteOf(head), `can't give argument to non-function ${nodeString(head)}`, finalArg);
    switch (head.kind) {
      case 'field':
        return this.fieldExpr(head, () => 'this', head.idents, rest, final, pre);
      case 'chain': {
        const recv = head.node;
        if (recv.kind === 'nil') return this.fail(this.siteOf(head), `indirection through explicit nil in ${nodeString(head)}`, finalArg);
        return this.fieldExpr(head, (p) => this.operand(recv, p), head.fields, rest, final, pre);
      }
      case 'variable':
        if (head.fields.length > 0) return this.fieldExpr(head, () => this.variable(head), head.fields, rest, final, pre);
        if (nargs === 0) return this.variable(head);
        return this.fail(this.siteOf(head), `can't give argument to non-function ${head.name}`, `${finalArg} ${this.variable(head)}`);
      case 'identifier':
        return this.call(head, cmd, rest, final, pre);
      case 'pipe':
        return nargs > 0 ? notAFunction() : this.operand(head, pre);
      case 'nil':
        return nargs > 0 ? notAFunction() : this.fail(this.siteOf(head), 'nil is not a command', '');
      default:
        return nargs > 0 ? notAFunction() : this.operand(head, pre);
    }
  }

  /**
   * Expressions in Go's order of evaluation. Handlebars evaluates a helper's
   * arguments left to right, but statements an argument needs first (a
   * declaration, an and/or) run before the whole expression; so when one
   * has statements, the arguments before it are evaluated into slots ahead of
   * those statements, and read from there.
   */
  private inOrder(parts: readonly ((pre: string[]) => string)[], pre: string[]): string[] {
    const exprs: string[] = [];
    for (const part of parts) {
      const own: string[] = [];
      const expr = part(own);
      if (own.length > 0) {
        exprs.forEach((e, i) => {
          if (/^(?:@k\.\[\d+\]|this|@root|@key)$/.test(e)) return;
          const slot = this.newSlot();
          pre.push(`{{setv 0 ${SLOTS} ${slot} "" false ${e}}}`);
          exprs[i] = `(getv 0 ${SLOTS} ${slot} "")`;
        });
        pre.push(...own);
      }
      exprs.push(expr);
    }
    return exprs;
  }

  /**
   * `.A.B args`: the arguments go to the last step, which only a method
   * accepts; a count after the names tells where they end. Go evaluates the
   * piped value first, then the receiver, then the arguments.
   */
  private fieldExpr(
    node: Operand,
    recv: (pre: string[]) => string,
    idents: readonly string[],
    args: readonly Operand[],
    final: string | undefined,
    pre: string[],
  ): string {
    const parts: ((p: string[]) => string)[] = [];
    if (final !== undefined) parts.push(() => final);
    parts.push(recv);
    for (const a of args) parts.push((p) => this.argument(a, p));
    const exprs = this.inOrder(parts, pre);
    const piped = final === undefined ? undefined : exprs.shift();
    const receiver = exprs.shift()!;
    let tail = '';
    if (args.length > 0 || piped !== undefined) {
      tail = ` ${args.length * 2 + (piped === undefined ? 0 : 1)}${exprs.map((e) => ` ${e}`).join('')}${piped === undefined ? '' : ` ${piped}`}`;
    }
    return `(field ${this.siteOf(node)} ${receiver}${names(idents)}${tail})`;
  }

  private variable(v: VariableNode): string {
    if (v.slot === -1) return '@root';
    return `(getv ${this.site(v.pos, v.name)} ${SLOTS} ${v.slot} "${v.name}")`;
  }

  private fail(site: number, message: string, evaluatedFirst: string): string {
    return `(fail ${site} ${this.constant(`text:${message}`, () => message)}${evaluatedFirst})`;
  }

  /** A literal as written, for a parameter to convert; other operands as values. */
  private argument(node: Operand, pre: string[]): string {
    switch (node.kind) {
      case 'bool':
        return this.constant(`lit:${node.value}`, () => new Literal('bool', String(node.value), node.value, '', undefined));
      case 'string':
        return this.constant(`lit:${node.quoted}`, () => new Literal('string', node.quoted, false, node.text, undefined));
      case 'number':
        return this.constant(`lit:${node.text}`, () => new Literal('number', node.text, false, '', node.num));
      case 'nil':
        return this.constant('lit:nil', () => new Literal('nil', 'nil', false, '', undefined));
      default:
        return this.operand(node, pre);
    }
  }

  /** An operand used as a value (an argument of no particular type, or the head of a command without arguments). */
  private operand(node: Operand, pre: string[]): string {
    switch (node.kind) {
      case 'dot':
        return 'this';
      case 'nil':
        return this.constant('nil', () => NO_VALUE);
      case 'bool':
        return this.constant(`bool:${node.value}`, () => new GoValue(BOOL, node.value));
      case 'number': {
        // Go's idealConstant, which fails (at execution) for an integer beyond int64.
        let value: GoValue;
        try {
          value = idealConstant(node.text, node.num);
        } catch (err) {
          if (err instanceof GoError) return this.fail(this.siteOf(node), err.message, '');
          throw err;
        }
        return this.constant(`number:${node.text}`, () => value);
      }
      case 'string':
        return this.constant(`string:${node.text}`, () => new GoValue(STRING, node.text));
      case 'field':
        return this.fieldExpr(node, () => 'this', node.idents, [], undefined, pre);
      case 'chain': {
        const recv = node.node;
        if (recv.kind === 'nil') return this.fail(this.siteOf(node), `indirection through explicit nil in ${nodeString(node)}`, '');
        return this.fieldExpr(node, (p) => this.operand(recv, p), node.fields, [], undefined, pre);
      }
      case 'variable':
        return node.fields.length > 0 ? this.fieldExpr(node, () => this.variable(node), node.fields, [], undefined, pre) : this.variable(node);
      case 'identifier':
        return this.call(node, node, [], undefined, pre);
      case 'pipe':
        return this.pipeValue(node, pre, true);
    }
  }

  private call(
    ident: IdentifierNode,
    cmd: CommandNode | IdentifierNode,
    args: readonly Operand[],
    final: string | undefined,
    pre: string[],
  ): string {
    const name = ident.name;
    const arity = ARITY.get(name);
    if (arity === undefined) throw new Error(`template compiler: no arity for ${name}`);
    const finalArg = final === undefined ? '' : ` ${final}`;
    const n = args.length + (final === undefined ? 0 : 1);
    // Go checks the argument count before evaluating any argument.
    if (arity.variadic && n < arity.min) {
      return this.fail(this.siteOf(ident), `wrong number of args for ${name}: want at least ${arity.min} got ${args.length}`, finalArg);
    }
    if (!arity.variadic && n !== arity.min) {
      return this.fail(this.siteOf(ident), `wrong number of args for ${name}: want ${arity.min} got ${n}`, finalArg);
    }
    const site = this.siteOf(cmd);
    if (name === 'and' || name === 'or') return this.andOr(site, name === 'or', args, final, pre);
    const [first] = args;
    // The piped value was evaluated before the arguments.
    const parts: ((p: string[]) => string)[] = final === undefined ? [] : [() => final];
    for (const a of args) parts.push((p) => this.argument(a, p));
    const exprs = this.inOrder(parts, pre);
    const piped = final === undefined ? '' : ` ${exprs.shift()!}`;
    let values = exprs.map((e) => ` ${e}`).join('');
    if (name === 'call') {
      // Go names the callee by its source text (the piped value's, when there is no argument).
      const callee = first === undefined ? '' : nodeString(first);
      values = ` ${this.constant(`string:${callee}`, () => new GoValue(STRING, callee))}${values}`;
    }
    return `(fn ${site} "${name}"${values}${piped})`;
  }

  /**
   * `and`/`or` stop at the first operand that decides the result and return
   * it. Each operand is evaluated inside its own goAndOr block into register r;
   * a value from the previous pipeline stage is evaluated before any operand.
   */
  private andOr(site: number, isOr: boolean, args: readonly Operand[], final: string | undefined, pre: string[]): string {
    const r = this.newSlot();
    const steps = args.map((a) => {
      const inner: string[] = [];
      const value = this.operand(a, inner);
      return `${inner.join('')}{{setv ${site} ${SLOTS} ${r} "" false ${value}}}`;
    });
    if (final !== undefined) {
      const f = this.newSlot();
      pre.push(`{{setv ${site} ${SLOTS} ${f} "" false ${final}}}`);
      steps.push(`{{setv ${site} ${SLOTS} ${r} "" false (getv ${site} ${SLOTS} ${f} "")}}`);
    }
    let chain = steps[steps.length - 1] ?? '';
    for (let i = steps.length - 2; i >= 0; i--) {
      chain = `{{#goAndOr ${site} ${SLOTS} ${r} ${isOr}}}${steps[i]}{{else}}${chain}{{/goAndOr}}`;
    }
    pre.push(chain);
    return `(getv ${site} ${SLOTS} ${r} "")`;
  }
}

function names(idents: readonly string[]): string {
  return idents.map((id) => ` "${id}"`).join('');
}

export function emit(parsed: ParsedTemplate): EmittedTemplate {
  return new Emitter(parsed).run();
}
