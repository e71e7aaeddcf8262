/**
 * Parser for Go text/template, following the grammar and the parse-time
 * checks of Go's text/template/parse: unknown functions, undefined
 * variables, misplaced `{{else}}`/`{{end}}`, empty pipelines and literals in
 * non-first pipeline stages are all rejected here, as the Go webhook rejects
 * them at admission.
 *
 * A template is a set of trees, as Go's parse.Parse returns them: the main
 * one, and one per `{{define}}` and `{{block}}`, each with variables of its
 * own. Defining a name twice is an error unless one of the two is empty.
 *
 * Variables are resolved here to numbered slots. Go looks variables up by
 * name on a runtime stack; a template has no recursion, so the binding a
 * reference sees is known from the source, except that the `{{else}}` branch
 * must not see variables declared in the `{{if}}` branch (Go keeps their names
 * visible to the parser but never pushes them at run time).
 */

import type {
  BreakNode,
  ChainNode,
  CommandNode,
  ControlNode,
  Declaration,
  Node,
  NumberNode,
  Operand,
  PipeNode,
  RangeControl,
  TemplateNode,
  Tree,
  VariableNode,
} from './ast.js';
import { nodeString } from './ast.js';
import { TemplateParseError } from './errors.js';
import type { NumberConst } from './eval.js';
import { isKeyword, lex } from './lexer.js';
import { numberConst, runeConst } from './numbers.js';
import type { Token, TokenType } from './lexer.js';
import { quote, unquoteRune, unquoteString } from './quote.js';

/** Go's builtin template functions; spire-controller-manager registers no others. */
const BUILTIN_FUNCTIONS: ReadonlySet<string> = new Set([
  'and',
  'call',
  'html',
  'index',
  'slice',
  'js',
  'len',
  'not',
  'or',
  'print',
  'printf',
  'println',
  'urlquery',
  'eq',
  'ge',
  'gt',
  'le',
  'lt',
  'ne',
]);

export interface ParsedTemplate {
  /** The name the template was parsed under; its tree is trees.get(name). */
  readonly name: string;
  /** Every tree by name: the main one, and those `{{define}}` and `{{block}}` add. */
  readonly trees: ReadonlyMap<string, Tree>;
}

const MAX_PAREN_DEPTH = 1000;
const MAX_CONTROL_DEPTH = 1000;

interface EndMarker {
  readonly kind: 'end';
  readonly pos: number;
}

interface ElseMarker {
  readonly kind: 'else';
  readonly pos: number;
}

type ListItem = Node | EndMarker | ElseMarker;

interface Binding {
  readonly name: string;
  readonly slot: number;
}

/** Go's item.String(), used in "unexpected X in Y" messages. */
function tokenString(tok: Token): string {
  if (tok.type === 'eof') return 'EOF';
  if (tok.type === 'error') return tok.val;
  if (isKeyword(tok.type)) return `<${tok.val}>`;
  const chars = [...tok.val];
  if (chars.length > 10) return `${quote(chars.slice(0, 10).join(''))}...`;
  return quote(tok.val);
}

const OPERAND_START: ReadonlySet<TokenType> = new Set<TokenType>([
  'bool',
  'charConstant',
  'complex',
  'dot',
  'field',
  'identifier',
  'number',
  'nil',
  'rawString',
  'string',
  'variable',
  'leftParen',
]);

/** The token stream all the trees of one template are parsed from, in turn. */
interface Stream {
  readonly toks: Token[];
  i: number;
}

/** White space as Go's bytes.TrimSpace sees it (unicode.IsSpace). */
const GO_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

/** Go's IsEmptyTree: nothing but white space (comments are already gone). */
function isEmptyTree(root: readonly Node[]): boolean {
  return root.every((n) => n.kind === 'text' && GO_SPACE.test(n.text));
}

/** Whether any action assigns to `$` (over-approximated by looking at the tokens). */
function assignsDollar(toks: readonly Token[]): boolean {
  for (let i = 0; i < toks.length; i++) {
    if (toks[i]!.type !== 'variable' || toks[i]!.val !== '$') continue;
    let j = i + 1;
    while (toks[j]?.type === 'space') j++;
    if (toks[j]?.type === 'assign') return true;
  }
  return false;
}

/** Parses one tree; `{{define}}` and `{{block}}` bodies get a parser of their own on the same stream. */
class Parser {
  /** Variable names the parser accepts, as Go's Tree.vars. */
  private readonly visible: string[] = ['$'];
  /** Variables that exist at run time at this point, innermost last. */
  private readonly bindings: Binding[] = [];
  private slotCount = 0;
  /** The ranges enclosing this point, innermost last: where a break or continue signals. */
  private readonly ranges: { control: RangeControl | undefined }[] = [];
  private parenDepth = 0;
  private controlDepth = 0;
  /** The slot `$` lives in when the template assigns to it (`{{ $ = x }}`), else -1. */
  private readonly dollarSlot: number;

  constructor(
    private readonly source: string,
    private readonly stream: Stream,
    private readonly trees: Map<string, Tree>,
  ) {
    // Decided up front, so that the slot is outside every scope that resets slots.
    this.dollarSlot = assignsDollar(stream.toks) ? this.slotCount++ : -1;
  }

  private get toks(): Token[] {
    return this.stream.toks;
  }

  private get i(): number {
    return this.stream.i;
  }

  private set i(value: number) {
    this.stream.i = value;
  }

  /** The main tree, up to EOF; `{{define}}` is allowed only here. */
  parseMain(name: string): void {
    const root: Node[] = [];
    while (this.peek().type !== 'eof') {
      if (this.peek().type === 'leftDelim') {
        const save = this.i;
        this.next();
        if (this.nextNonSpace().type === 'define') {
          new Parser(this.source, this.stream, this.trees).parseDefinition();
          continue;
        }
        this.i = save;
      }
      const n = this.textOrAction();
      if (n.kind === 'end' || n.kind === 'else') this.fail(n.pos, `unexpected {{${n.kind}}}`);
      root.push(n);
    }
    this.add({ name, root, slotCount: this.slotCount, dollarSlot: this.dollarSlot }, this.peek().pos);
  }

  /** `{{define "name"}} ... {{end}}`; the keyword has been read. */
  private parseDefinition(): void {
    const context = 'define clause';
    const nameTok = this.nextNonSpace();
    if (nameTok.type !== 'string' && nameTok.type !== 'rawString') this.unexpected(nameTok, context);
    const name = unquoteString(nameTok.val);
    if (name === undefined) this.fail(nameTok.pos, 'invalid syntax');
    this.expect('rightDelim', context);
    const [root, end] = this.itemList();
    if (end.kind !== 'end') this.fail(end.pos, `unexpected {{${end.kind}}} in ${context}`);
    this.add({ name, root, slotCount: this.slotCount, dollarSlot: this.dollarSlot }, end.pos);
  }

  /** Go's Tree.add: a second definition of a name is an error unless one of the two is empty. */
  private add(tree: Tree, pos: number): void {
    const existing = this.trees.get(tree.name);
    if (existing === undefined || isEmptyTree(existing.root)) {
      this.trees.set(tree.name, tree);
      return;
    }
    if (!isEmptyTree(tree.root)) this.fail(pos, `template: multiple definition of template ${quote(tree.name)}`);
  }

  // ---- token stream ----

  private next(): Token {
    const tok = this.peek();
    this.i++;
    return tok;
  }

  // The stream ends in eof or error; reading on keeps returning that last token.
  private peek(): Token {
    const tok = this.toks[Math.min(this.i, this.toks.length - 1)];
    if (tok === undefined) throw new Error('the template lexer produced no tokens');
    return tok;
  }

  private backup(): void {
    this.i--;
  }

  private nextNonSpace(): Token {
    let tok = this.next();
    while (tok.type === 'space') tok = this.next();
    return tok;
  }

  /** Skips spaces and returns the next token without consuming it. */
  private peekNonSpace(): Token {
    while (this.peek().type === 'space') this.next();
    return this.peek();
  }

  // ---- errors ----

  private fail(pos: number, reason: string): never {
    throw new TemplateParseError(this.source, pos, reason);
  }

  private unexpected(tok: Token, context: string): never {
    if (tok.type === 'error') this.fail(tok.pos, tok.val);
    this.fail(tok.pos, `unexpected ${tokenString(tok)} in ${context}`);
  }

  private expect(type: TokenType, context: string): Token {
    const tok = this.nextNonSpace();
    if (tok.type !== type) this.unexpected(tok, context);
    return tok;
  }

  // ---- lists and actions ----

  private itemList(): [Node[], EndMarker | ElseMarker] {
    const list: Node[] = [];
    while (this.peekNonSpace().type !== 'eof') {
      const n = this.textOrAction();
      if (n.kind === 'end' || n.kind === 'else') return [list, n];
      list.push(n);
    }
    this.fail(this.peek().pos, 'unexpected EOF');
  }

  private textOrAction(): ListItem {
    const tok = this.nextNonSpace();
    if (tok.type === 'text') return { kind: 'text', pos: tok.pos, text: tok.val };
    if (tok.type === 'leftDelim') return this.action();
    this.unexpected(tok, 'input');
  }

  private action(): ListItem {
    const tok = this.nextNonSpace();
    const type = tok.type;
    if (type === 'block') return this.blockControl(tok);
    if (type === 'template') return this.templateControl(tok);
    if (type === 'break' || type === 'continue') return this.breakControl(tok, type);
    if (type === 'else') return this.elseControl(tok);
    if (type === 'end') {
      this.expect('rightDelim', 'end');
      return { kind: 'end', pos: tok.pos };
    }
    if (type === 'if' || type === 'range' || type === 'with') return this.control(type);
    this.backup();
    const first = this.peek();
    return { kind: 'action', pos: first.pos, pipe: this.pipeline('command', 'rightDelim') };
  }

  private breakControl(tok: Token, kind: 'break' | 'continue'): BreakNode {
    const name = `{{${kind}}}`;
    const after = this.nextNonSpace();
    if (after.type !== 'rightDelim') this.unexpected(after, name);
    const range = this.ranges[this.ranges.length - 1];
    if (range === undefined) this.fail(tok.pos, `${name} outside {{range}}`);
    range.control ??= { slot: -1 };
    return { kind, pos: tok.pos, control: range.control };
  }

  private templateName(tok: Token, context: string): string {
    if (tok.type !== 'string' && tok.type !== 'rawString') this.unexpected(tok, context);
    const name = unquoteString(tok.val);
    if (name === undefined) this.fail(tok.pos, 'invalid syntax');
    return name;
  }

  /** `{{template "name"}}` or `{{template "name" pipeline}}`. */
  private templateControl(keyword: Token): TemplateNode {
    const context = 'template clause';
    const tok = this.nextNonSpace();
    const name = this.templateName(tok, context);
    let pipe: PipeNode | undefined;
    if (this.nextNonSpace().type !== 'rightDelim') {
      this.backup();
      pipe = this.pipeline(context, 'rightDelim');
    }
    return { kind: 'template', pos: keyword.pos, name, pipe };
  }

  /** `{{block "name" pipeline}} ... {{end}}`: defines the template and invokes it. */
  private blockControl(keyword: Token): TemplateNode {
    const context = 'block clause';
    const tok = this.nextNonSpace();
    const name = this.templateName(tok, context);
    const pipe = this.pipeline(context, 'rightDelim');
    const body = new Parser(this.source, this.stream, this.trees);
    const [root, end] = body.itemList();
    if (end.kind !== 'end') this.fail(end.pos, `unexpected {{${end.kind}}} in ${context}`);
    body.add({ name, root, slotCount: body.slotCount, dollarSlot: body.dollarSlot }, end.pos);
    return { kind: 'template', pos: keyword.pos, name, pipe };
  }

  private elseControl(keyword: Token): ElseMarker {
    const peek = this.peekNonSpace();
    // `{{else if ...}}` and `{{else with ...}}` leave the keyword pending for the enclosing control.
    if (peek.type !== 'if' && peek.type !== 'with') this.expect('rightDelim', 'else');
    return { kind: 'else', pos: keyword.pos };
  }

  private control(context: 'if' | 'range' | 'with'): ControlNode {
    if (++this.controlDepth > MAX_CONTROL_DEPTH) this.fail(this.peek().pos, 'template nesting is too deep');
    const visibleMark = this.visible.length;
    const bindingMark = this.bindings.length;
    const lo = this.slotCount;
    const pipe = this.pipeline(context, 'rightDelim');
    const bodyLo = this.slotCount;
    const pipeBindings = this.bindings.length;
    const range = { control: undefined as RangeControl | undefined };
    if (context === 'range') this.ranges.push(range);
    const [list, next] = this.itemList();
    if (context === 'range') this.ranges.pop();
    const bodyHi = this.slotCount;
    // Allocated after the body, so that the per-iteration reset of the body's slots leaves it alone.
    if (range.control !== undefined) range.control.slot = this.slotCount++;
    let elseList: Node[] | undefined;
    if (next.kind === 'else') {
      this.bindings.length = pipeBindings;
      const chained = this.peek().type;
      if ((context === 'if' && chained === 'if') || (context === 'with' && chained === 'with')) {
        // {{if a}}..{{else if b}}..{{end}} is {{if a}}..{{else}}{{if b}}..{{end}}{{end}}.
        this.next();
        elseList = [this.control(context)];
      } else {
        const [rest, end] = this.itemList();
        if (end.kind !== 'end') this.fail(end.pos, 'expected end; found {{else}}');
        elseList = rest;
      }
    }
    this.visible.length = visibleMark;
    this.bindings.length = bindingMark;
    this.controlDepth--;
    return {
      kind: context,
      pos: pipe.pos,
      pipe,
      list,
      elseList,
      scope: { lo, hi: this.slotCount },
      bodyScope: { lo: bodyLo, hi: bodyHi },
      control: range.control,
    };
  }

  // ---- pipelines ----

  private pipeline(context: string, end: 'rightDelim' | 'rightParen'): PipeNode {
    const pos = this.peekNonSpace().pos;
    const declTokens: Token[] = [];
    let isAssign = false;
    for (;;) {
      const v = this.peekNonSpace();
      if (v.type !== 'variable') break;
      const save = this.i;
      this.next();
      const after = this.peekNonSpace();
      if (after.type === 'assign' || after.type === 'declare') {
        isAssign = after.type === 'assign';
        this.next();
        declTokens.push(v);
        this.visible.push(v.val);
        break;
      }
      if (after.type === 'char' && after.val === ',') {
        this.next();
        declTokens.push(v);
        this.visible.push(v.val);
        if (context === 'range' && declTokens.length < 2) {
          const t = this.peekNonSpace().type;
          if (t === 'variable' || t === 'rightDelim' || t === 'rightParen') continue;
          this.fail(this.peek().pos, 'range can only initialize variables');
        }
        this.fail(after.pos, `too many declarations in ${context}`);
      }
      // Not a declaration: the variable is the start of a command.
      this.i = save;
      break;
    }

    // Declared variables come into existence after the pipeline is evaluated,
    // so the pipeline itself still sees any outer variable of the same name.
    const decl: Declaration[] = declTokens.map((tok) => ({
      name: tok.val,
      pos: tok.pos,
      slot: isAssign ? this.resolve(tok.val) : this.slotCount++,
    }));

    const cmds: CommandNode[] = [];
    for (;;) {
      const tok = this.nextNonSpace();
      if (tok.type === end) {
        if (cmds.length === 0) this.fail(tok.pos, `missing value for ${context}`);
        cmds.forEach((cmd, idx) => {
          const first = cmd.args[0];
          if (idx > 0 && first !== undefined && isLiteral(first)) {
            this.fail(tok.pos, `non executable command in pipeline stage ${idx + 1}`);
          }
        });
        if (!isAssign) for (const d of decl) this.bindings.push({ name: d.name, slot: d.slot });
        return { kind: 'pipe', pos, decl, isAssign, cmds };
      }
      if (!OPERAND_START.has(tok.type)) this.unexpected(tok, context);
      this.backup();
      cmds.push(this.command());
    }
  }

  private command(): CommandNode {
    const pos = this.peekNonSpace().pos;
    const args: Operand[] = [];
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand !== undefined) args.push(operand);
      const tok = this.next();
      if (tok.type === 'space') continue;
      if (tok.type === 'rightDelim' || tok.type === 'rightParen') this.backup();
      else if (tok.type !== 'pipe') this.unexpected(tok, 'operand');
      break;
    }
    if (args.length === 0) this.fail(pos, 'empty command');
    return { kind: 'command', pos, args };
  }

  private operand(): Operand | undefined {
    const node = this.term();
    if (node === undefined || this.peek().type !== 'field') return node;
    // Go positions a chained field at its second segment.
    const pos = this.peek().pos;
    const fields: string[] = [];
    while (this.peek().type === 'field') fields.push(this.next().val.slice(1));
    if (node.kind === 'field') return { kind: 'field', pos, idents: [...node.idents, ...fields] };
    if (node.kind === 'variable') return { ...node, pos, fields: [...node.fields, ...fields] };
    if (isLiteral(node)) this.fail(pos, `unexpected . after term ${quote(nodeString(node))}`);
    const chain: ChainNode = { kind: 'chain', pos, node, fields };
    return chain;
  }

  private term(): Operand | undefined {
    const tok = this.nextNonSpace();
    switch (tok.type) {
      case 'identifier':
        if (!BUILTIN_FUNCTIONS.has(tok.val)) this.fail(tok.pos, `function ${quote(tok.val)} not defined`);
        return { kind: 'identifier', pos: tok.pos, name: tok.val };
      case 'dot':
        return { kind: 'dot', pos: tok.pos };
      case 'nil':
        return { kind: 'nil', pos: tok.pos };
      case 'variable':
        return this.useVar(tok);
      case 'field':
        return { kind: 'field', pos: tok.pos, idents: [tok.val.slice(1)] };
      case 'bool':
        return { kind: 'bool', pos: tok.pos, value: tok.val === 'true' };
      case 'charConstant':
      case 'complex':
      case 'number':
        return this.number(tok);
      case 'leftParen': {
        if (++this.parenDepth > MAX_PAREN_DEPTH) this.fail(tok.pos, 'max expression depth exceeded');
        const pipe = this.pipeline('parenthesized pipeline', 'rightParen');
        this.parenDepth--;
        return pipe;
      }
      case 'string':
      case 'rawString': {
        const text = unquoteString(tok.val);
        if (text === undefined) this.fail(tok.pos, `invalid syntax in string literal ${tok.val}`);
        return { kind: 'string', pos: tok.pos, quoted: tok.val, text };
      }
    }
    this.backup();
    return undefined;
  }

  // ---- variables ----

  private useVar(tok: Token): VariableNode {
    if (!this.visible.includes(tok.val)) this.fail(tok.pos, `undefined variable ${quote(tok.val)}`);
    return { kind: 'variable', pos: tok.pos, name: tok.val, slot: this.resolve(tok.val), fields: [] };
  }

  /**
   * The slot of the innermost run-time binding of a name; a name the parser
   * accepts but that has no binding at run time gets a slot that is never set,
   * so that using it fails at execution as it does in Go.
   */
  private resolve(name: string): number {
    for (let k = this.bindings.length - 1; k >= 0; k--) {
      const b = this.bindings[k];
      if (b !== undefined && b.name === name) return b.slot;
    }
    // `$` is the data the tree runs on: @root (-1), or a slot holding it when the template assigns to it.
    if (name === '$') return this.dollarSlot;
    return this.slotCount++;
  }

  // ---- numbers ----

  private number(tok: Token): NumberNode {
    const text = tok.val;
    let num: NumberConst | string;
    if (tok.type === 'charConstant') {
      const rune = unquoteRune(text.slice(1, -1));
      num = rune === undefined ? `malformed character constant: ${text}` : runeConst(rune);
    } else {
      num = numberConst(text, tok.type === 'complex');
    }
    if (typeof num === 'string') this.fail(tok.pos, num);
    return { kind: 'number', pos: tok.pos, text, num };
  }
}

function isLiteral(node: Operand): boolean {
  return node.kind === 'bool' || node.kind === 'dot' || node.kind === 'nil' || node.kind === 'number' || node.kind === 'string';
}

/** Go's template.New(name).Parse(source): every tree, or a TemplateParseError. */
export function parse(source: string, name = ''): ParsedTemplate {
  const trees = new Map<string, Tree>();
  new Parser(source, { toks: lex(source), i: 0 }, trees).parseMain(name);
  return { name, trees };
}
