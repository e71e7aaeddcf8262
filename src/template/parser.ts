/**
 * Parser for Go text/template, following the grammar and the parse-time
 * checks of Go's text/template/parse: unknown functions, undefined
 * variables, misplaced `{{else}}`/`{{end}}`, empty pipelines and literals in
 * non-first pipeline stages are all rejected here, as the Go webhook rejects
 * them at admission.
 *
 * Beyond Go, the parser rejects constructs spire-reconciler cannot execute
 * faithfully (`define`, `template`, `block`, `break`, `continue`, complex
 * numbers, integers beyond 2^53), naming them in the message.
 *
 * Variables are resolved here to numbered slots. Go looks variables up by
 * name on a runtime stack; a template has no recursion, so the binding a
 * reference sees is known from the source, except that the `{{else}}` branch
 * must not see variables declared in the `{{if}}` branch (Go keeps their names
 * visible to the parser but never pushes them at run time).
 */

import type {
  ChainNode,
  CommandNode,
  ControlNode,
  Declaration,
  Node,
  NumberNode,
  Operand,
  PipeNode,
  VariableNode,
} from './ast.js';
import { nodeString } from './ast.js';
import { TemplateParseError } from './errors.js';
import { isKeyword, lex } from './lexer.js';
import type { Token, TokenType } from './lexer.js';
import { quote, unquoteRune, unquoteString } from './quote.js';

/** Go's builtin template functions; spire-controller-manager registers no others. */
export const BUILTIN_FUNCTIONS: ReadonlySet<string> = new Set([
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
  readonly root: readonly Node[];
  /** Number of variable slots the template uses. */
  readonly slotCount: number;
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

class Parser {
  private readonly toks: Token[];
  private i = 0;
  /** Variable names the parser accepts, as Go's Tree.vars. */
  private readonly visible: string[] = ['$'];
  /** Variables that exist at run time at this point, innermost last. */
  private readonly bindings: Binding[] = [];
  private slotCount = 0;
  private rangeDepth = 0;
  private parenDepth = 0;
  private controlDepth = 0;

  constructor(private readonly source: string) {
    this.toks = lex(source);
  }

  parse(): ParsedTemplate {
    const root: Node[] = [];
    while (this.peek().type !== 'eof') {
      if (this.peek().type === 'leftDelim') {
        const save = this.i;
        this.next();
        const tok = this.nextNonSpace();
        if (tok.type === 'define') this.unsupported(tok, '{{define}}');
        this.i = save;
      }
      const n = this.textOrAction();
      if (n.kind === 'end' || n.kind === 'else') this.fail(n.pos, `unexpected {{${n.kind}}}`);
      root.push(n);
    }
    return { root, slotCount: this.slotCount };
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

  private unsupported(tok: Token, what: string): never {
    this.fail(tok.pos, `${what} is valid Go template syntax but spire-reconciler does not support it`);
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
    if (type === 'block' || type === 'template') this.unsupported(tok, `{{${tok.val}}}`);
    if (type === 'break' || type === 'continue') {
      const name = `{{${tok.val}}}`;
      const after = this.nextNonSpace();
      if (after.type !== 'rightDelim') this.unexpected(after, name);
      if (this.rangeDepth === 0) this.fail(tok.pos, `${name} outside {{range}}`);
      this.unsupported(tok, name);
    }
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
    if (context === 'range') this.rangeDepth++;
    const [list, next] = this.itemList();
    if (context === 'range') this.rangeDepth--;
    const bodyHi = this.slotCount;
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
    const slot = tok.val === '$' ? -1 : this.resolve(tok.val);
    return { kind: 'variable', pos: tok.pos, name: tok.val, slot, fields: [] };
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
    return this.slotCount++;
  }

  // ---- numbers ----

  private number(tok: Token): NumberNode {
    const text = tok.val;
    const make = (value: number, isFloat: boolean): NumberNode => ({ kind: 'number', pos: tok.pos, text, value, isFloat });
    if (tok.type === 'complex' || text.endsWith('i')) {
      this.fail(tok.pos, `complex constant ${text} is valid Go template syntax but spire-reconciler does not support it`);
    }
    if (tok.type === 'charConstant') {
      const rune = unquoteRune(text.slice(1, -1));
      if (rune === undefined) this.fail(tok.pos, `malformed character constant: ${text}`);
      return make(rune, false);
    }
    const int = parseGoInt(text);
    if (int !== undefined) {
      if (int > BigInt(Number.MAX_SAFE_INTEGER) || int < BigInt(Number.MIN_SAFE_INTEGER)) {
        this.fail(tok.pos, `integer constant ${text} is beyond the range spire-reconciler supports (2^53)`);
      }
      return make(Number(int), false);
    }
    const float = parseGoFloat(text);
    if (float === undefined) this.fail(tok.pos, `illegal number syntax: ${quote(text)}`);
    // A float-looking integer too big for int64 is an error in Go too.
    if (!/[.eEpP]/.test(text)) this.fail(tok.pos, `integer overflow: ${quote(text)}`);
    // Go's idealConstant: a number written with '.', 'e' or 'p' is a float64 even when integral.
    return make(float, true);
  }
}

function isLiteral(node: Operand): boolean {
  return node.kind === 'bool' || node.kind === 'dot' || node.kind === 'nil' || node.kind === 'number' || node.kind === 'string';
}

/** Underscores must sit between digits, or between a base prefix and a digit (Go's underscoreOK). */
function underscoresOK(digits: string, afterPrefix: boolean): boolean {
  if (digits.length === 0) return false;
  if (digits.startsWith('_') && !afterPrefix) return false;
  return !digits.endsWith('_') && !digits.includes('__');
}

/** strconv.ParseInt(text, 0, 64) syntax; the value as a bigint, or undefined if not an integer. */
export function parseGoInt(text: string): bigint | undefined {
  const m = /^([+-]?)(.*)$/s.exec(text);
  const sign = m?.[1] === '-' ? -1n : 1n;
  const body = m?.[2] ?? '';
  let digits: string;
  let radix: 'x' | 'o' | 'b' | 'd';
  let prefixed = true;
  if (/^0[xX]/.test(body)) {
    radix = 'x';
    digits = body.slice(2);
  } else if (/^0[oO]/.test(body)) {
    radix = 'o';
    digits = body.slice(2);
  } else if (/^0[bB]/.test(body)) {
    radix = 'b';
    digits = body.slice(2);
  } else if (body.length > 1 && body.startsWith('0')) {
    radix = 'o';
    digits = body.slice(1);
  } else {
    radix = 'd';
    digits = body;
    prefixed = false;
  }
  if (!underscoresOK(digits, prefixed)) return undefined;
  const clean = digits.replaceAll('_', '');
  const valid = { x: /^[0-9a-fA-F]+$/, o: /^[0-7]+$/, b: /^[01]+$/, d: /^[0-9]+$/ }[radix];
  if (!valid.test(clean)) return undefined;
  const value = sign * BigInt(radix === 'd' ? clean : `0${radix}${clean}`);
  if (value > 0x7fffffffffffffffn || value < -0x8000000000000000n) return undefined;
  return value;
}

/** strconv.ParseFloat(text, 64) for the forms the lexer can produce. */
export function parseGoFloat(text: string): number | undefined {
  const m = /^([+-]?)(.*)$/s.exec(text);
  const negative = m?.[1] === '-';
  const body = m?.[2] ?? '';
  let value: number;
  const hex = /^0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?[0-9_]+)$/.exec(body);
  if (hex !== null) {
    const intPart = (hex[1] ?? '').replaceAll('_', '');
    const fracPart = (hex[2] ?? '').replaceAll('_', '');
    if (intPart.length + fracPart.length === 0) return undefined;
    const mantissa = parseInt(intPart + fracPart || '0', 16);
    const exp = Number((hex[3] ?? '0').replaceAll('_', '')) - 4 * fracPart.length;
    value = mantissa * 2 ** exp;
  } else {
    const m2 = /^([0-9_]*)(?:\.([0-9_]*))?(?:[eE]([+-]?[0-9_]+))?$/.exec(body);
    if (m2 === null) return undefined;
    const intPart = m2[1] ?? '';
    const fracPart = m2[2];
    if (intPart.length === 0 && (fracPart === undefined || fracPart.length === 0)) return undefined;
    if (body.includes('_') && !/^[0-9]+(_[0-9]+)*(\.([0-9]+(_[0-9]+)*)?)?([eE][+-]?[0-9]+(_[0-9]+)*)?$/.test(body)) {
      return undefined;
    }
    value = Number(body.replaceAll('_', ''));
    if (Number.isNaN(value)) return undefined;
  }
  return negative ? -value : value;
}

export function parse(source: string): ParsedTemplate {
  return new Parser(source).parse();
}
