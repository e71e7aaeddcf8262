/**
 * Compiles a parsed Go template to Handlebars source for the helpers in
 * helpers.ts.
 *
 * - Field chains become `(field site recv "A" "B")` (or `{{pf ...}}` when an
 *   action prints one directly); the names are Go identifiers, so they are
 *   always safe Handlebars string literals, and map keys never become paths.
 * - Literals, and text Handlebars would misread (braces, backslashes), live in
 *   a per-template constant table passed as `@k` and are referenced as `@k.[n]`.
 * - `if`/`with`/`range` become the goIf/goWith/goRange block helpers.
 * - Variables live in numbered slots passed as `@v`. Declarations and the
 *   lazily evaluated `and`/`or` are computed by statements placed just before
 *   the action or block that uses them ("pre" statements), writing slots that
 *   the expression then reads; an `and`/`or` operand's own pre statements go
 *   inside the block that evaluates that operand, so laziness is kept.
 */

import type { ActionNode, CommandNode, ControlNode, IdentifierNode, Node, Operand, PipeNode, VariableNode } from './ast.js';
import { nodeString } from './ast.js';
import { ARITY } from './funcs.js';
import { BOOL, FLOAT64, INT, STRING } from './gotypes.js';
import type { ParsedTemplate } from './parser.js';
import { GoValue, NO_VALUE } from './values.js';

export interface Site {
  /** Offset of the node in the Go template source. */
  readonly pos: number;
  /** The node as Go prints it in error messages. */
  readonly context: string;
}

export interface EmittedTemplate {
  readonly source: string;
  /** Values referenced as `@k.[n]`. */
  readonly constants: readonly unknown[];
  readonly sites: readonly Site[];
  /** Size of the `@v` slot array; 0 when the template needs none. */
  readonly slotCount: number;
}

/** Text Handlebars copies verbatim: no mustache can start or end inside it, and no escape precedes one. */
const PLAIN_TEXT = /^[^{}\\\0]*$/;

const SLOTS = '@v';

class Emitter {
  private readonly constants: unknown[] = [];
  private readonly constantIndex = new Map<string, number>();
  private readonly sites: Site[] = [];
  private slotCount: number;

  constructor(private readonly parsed: ParsedTemplate) {
    this.slotCount = parsed.slotCount;
  }

  run(): EmittedTemplate {
    const source = this.list(this.parsed.root);
    return { source, constants: this.constants, sites: this.sites, slotCount: this.slotCount };
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
    return nodes.map((n) => this.node(n)).join('');
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
    }
  }

  private action(n: ActionNode): string {
    const pipe = n.pipe;
    const pre: string[] = [];
    const [decl] = pipe.decl;
    if (decl !== undefined) {
      const value = this.pipeValue(pipe, pre);
      const site = this.site(decl.pos, decl.name);
      return `${pre.join('')}{{setv ${site} ${SLOTS} ${decl.slot} "${decl.name}" ${pipe.isAssign} ${value}}}`;
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
    const value = this.pipeValue(pipe, pre);
    return `${pre.join('')}{{out ${this.siteOf(n)} ${value}}}`;
  }

  private control(n: ControlNode): string {
    const pre: string[] = [];
    let value = this.pipeValue(n.pipe, pre);
    const site = this.site(n.pos, nodeString(n.pipe));
    const { decl, isAssign } = n.pipe;
    let bodyPrefix = '';
    if (decl.length > 0) {
      // Go binds every declared variable to the pipeline's value first; range then rebinds them per element.
      const [first] = decl;
      if (first !== undefined) {
        const firstSite = this.site(first.pos, first.name);
        pre.push(`{{setv ${firstSite} ${SLOTS} ${first.slot} "${first.name}" ${isAssign} ${value}}}`);
        value = `(getv ${firstSite} ${SLOTS} ${first.slot} "${first.name}")`;
        for (const d of decl.slice(1)) {
          pre.push(`{{setv ${this.site(d.pos, d.name)} ${SLOTS} ${d.slot} "${d.name}" ${isAssign} ${value}}}`);
        }
      }
      if (n.kind === 'range') {
        const elem = decl[decl.length - 1];
        const key = decl.length > 1 ? decl[0] : undefined;
        if (key !== undefined) bodyPrefix += `{{setv ${this.site(key.pos, key.name)} ${SLOTS} ${key.slot} "${key.name}" false @key}}`;
        if (elem !== undefined) bodyPrefix += `{{setv ${this.site(elem.pos, elem.name)} ${SLOTS} ${elem.slot} "${elem.name}" false this}}`;
      }
    }
    const scoped = n.scope.hi > n.scope.lo;
    let open: string;
    let helper: string;
    if (n.kind === 'range') {
      helper = 'goRange';
      const scope = scoped ? ` ${SLOTS} ${n.scope.lo} ${n.bodyScope.lo} ${n.bodyScope.hi} ${n.scope.hi}` : '';
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

  /** The value of a pipeline; statements it needs first are appended to `pre`. */
  private pipeValue(pipe: PipeNode, pre: string[]): string {
    let value: string | undefined;
    for (const cmd of pipe.cmds) value = this.command(cmd, value, pre);
    if (value === undefined) throw new Error('template compiler: empty pipeline');
    return value;
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
        return this.fieldExpr(head, 'this', head.idents, nargs, finalArg);
      case 'chain':
        return this.fieldExpr(head, this.operand(head.node, pre), head.fields, nargs, finalArg);
      case 'variable':
        if (head.fields.length > 0) return this.fieldExpr(head, this.variable(head), head.fields, nargs, finalArg);
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

  private fieldExpr(node: Operand, recv: string, idents: readonly string[], nargs: number, finalArg: string): string {
    // Arguments to a field are an error Go raises before evaluating them, so only their count is passed.
    const args = nargs > 0 ? ` ${nargs}${finalArg}` : '';
    return `(field ${this.siteOf(node)} ${recv}${names(idents)}${args})`;
  }

  private variable(v: VariableNode): string {
    if (v.slot === -1) return '@root';
    return `(getv ${this.site(v.pos, v.name)} ${SLOTS} ${v.slot} "${v.name}")`;
  }

  private fail(site: number, message: string, evaluatedFirst: string): string {
    return `(fail ${site} ${this.constant(`text:${message}`, () => message)}${evaluatedFirst})`;
  }

  /** An operand used as a value (an argument, or the head of a command without arguments). */
  private operand(node: Operand, pre: string[]): string {
    switch (node.kind) {
      case 'dot':
        return 'this';
      case 'nil':
        return this.constant('nil', () => NO_VALUE);
      case 'bool':
        return this.constant(`bool:${node.value}`, () => new GoValue(BOOL, node.value));
      case 'number':
        return node.isFloat
          ? this.constant(`float:${node.value}`, () => new GoValue(FLOAT64, node.value))
          : this.constant(`int:${node.value}`, () => new GoValue(INT, node.value));
      case 'string':
        return this.constant(`string:${node.text}`, () => new GoValue(STRING, node.text));
      case 'field':
        return this.fieldExpr(node, 'this', node.idents, 0, '');
      case 'chain':
        return this.fieldExpr(node, this.operand(node.node, pre), node.fields, 0, '');
      case 'variable':
        return node.fields.length > 0 ? this.fieldExpr(node, this.variable(node), node.fields, 0, '') : this.variable(node);
      case 'identifier':
        return this.call(node, node, [], undefined, pre);
      case 'pipe': {
        const value = this.pipeValue(node, pre);
        const [decl] = node.decl;
        if (decl === undefined) return value;
        const site = this.site(decl.pos, decl.name);
        pre.push(`{{setv ${site} ${SLOTS} ${decl.slot} "${decl.name}" ${node.isAssign} ${value}}}`);
        return `(getv ${site} ${SLOTS} ${decl.slot} "${decl.name}")`;
      }
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
    if (name === 'printf' && first !== undefined) {
      // printf's format parameter is a string: Go refuses other literals before evaluating anything.
      if (first.kind === 'nil') return this.fail(site, 'cannot assign nil to string', finalArg);
      if (first.kind === 'bool' || first.kind === 'number') {
        return this.fail(site, `expected string; found ${nodeString(first)}`, finalArg);
      }
    }
    let values = args.map((a) => ` ${this.operand(a, pre)}`).join('');
    if (name === 'call' && first !== undefined) {
      // Go names the callee by its source text when it is not a function.
      const callee = nodeString(first);
      values = ` ${this.constant(`string:${callee}`, () => new GoValue(STRING, callee))}${values}`;
    }
    return `(fn ${site} "${name}"${values}${finalArg})`;
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
