/**
 * Tokenizer for Go text/template source, following the rules of Go's
 * text/template/parse lexer: `{{`/`}}` delimiters, `{{- ` / ` -}}` trim
 * markers, comment actions (slash-star ... star-slash), and the tokens that
 * may appear in an action.
 *
 * Trim markers are applied here, to the text tokens, so the parser never sees
 * them. The whole input is tokenized up front; the token stream ends with
 * either an `eof` or an `error` token (the lexer stops at its first error,
 * and the parser reports it when it reaches it, as Go does).
 */

import { isDigit, isLetter, isPrint } from './chars.js';

type KeywordType =
  | 'block'
  | 'break'
  | 'continue'
  | 'define'
  | 'dot'
  | 'else'
  | 'end'
  | 'if'
  | 'nil'
  | 'range'
  | 'template'
  | 'with';

export type TokenType =
  | KeywordType
  | 'assign'
  | 'bool'
  | 'char'
  | 'charConstant'
  | 'complex'
  | 'declare'
  | 'eof'
  | 'error'
  | 'field'
  | 'identifier'
  | 'leftDelim'
  | 'leftParen'
  | 'number'
  | 'pipe'
  | 'rawString'
  | 'rightDelim'
  | 'rightParen'
  | 'space'
  | 'string'
  | 'text'
  | 'variable';

export interface Token {
  readonly type: TokenType;
  /** Offset in the source (UTF-16 code units). */
  readonly pos: number;
  /** The token's text; for `text` tokens, after trimming; for `error` tokens, the message. */
  readonly val: string;
}

const KEYWORDS: ReadonlyMap<string, KeywordType> = new Map<string, KeywordType>([
  ['.', 'dot'],
  ['block', 'block'],
  ['break', 'break'],
  ['continue', 'continue'],
  ['define', 'define'],
  ['else', 'else'],
  ['end', 'end'],
  ['if', 'if'],
  ['nil', 'nil'],
  ['range', 'range'],
  ['template', 'template'],
  ['with', 'with'],
]);

export function isKeyword(type: TokenType): type is KeywordType {
  return KEYWORD_TYPES.has(type);
}

const KEYWORD_TYPES: ReadonlySet<TokenType> = new Set(KEYWORDS.values());

const LEFT_DELIM = '{{';
const RIGHT_DELIM = '}}';
const LEFT_COMMENT = '/*';
const RIGHT_COMMENT = '*/';

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\r' || c === '\n';
}

/** Go's isAlphaNumeric: underscore, Unicode letter or Unicode decimal digit (Go's Unicode version). */
function isAlphaNumeric(c: string | undefined): boolean {
  if (c === undefined) return false;
  const cp = c.codePointAt(0) ?? 0;
  return c === '_' || isLetter(cp) || isDigit(cp);
}

/** `{{- ` needs the dash followed by a space, so that `{{-3}}` stays a number. */
function hasLeftTrimMarker(s: string, at: number): boolean {
  return s[at] === '-' && isSpace(s[at + 1]);
}

function hasRightTrimMarker(s: string, at: number): boolean {
  return isSpace(s[at]) && s[at + 1] === '-';
}

function trimmedRightLength(s: string, start: number, end: number): number {
  let i = end;
  while (i > start && isSpace(s[i - 1])) i--;
  return end - i;
}

function trimmedLeftEnd(s: string, start: number): number {
  let i = start;
  while (i < s.length && isSpace(s[i])) i++;
  return i;
}

/** Go's `%#U` rendering of a rune, as used in its lexer error messages. */
function describeRune(c: string): string {
  const cp = c.codePointAt(0) ?? 0;
  const hex = cp.toString(16).toUpperCase().padStart(4, '0');
  return isPrint(c) ? `U+${hex} '${c}'` : `U+${hex}`;
}

class Lexer {
  private pos = 0;
  private start = 0;
  private insideAction = false;
  private parenDepth = 0;
  readonly tokens: Token[] = [];

  constructor(private readonly input: string) {}

  run(): Token[] {
    for (;;) {
      const done = this.insideAction ? this.lexInsideAction() : this.lexText();
      if (done) return this.tokens;
    }
  }

  // Returns true when the token stream is complete.
  private emit(type: TokenType, val = this.input.slice(this.start, this.pos)): false {
    this.tokens.push({ type, pos: this.start, val });
    this.start = this.pos;
    return false;
  }

  private fail(message: string): true {
    this.tokens.push({ type: 'error', pos: this.start, val: message });
    return true;
  }

  /** The code point at the current position, or undefined at the end. */
  private peek(): string | undefined {
    if (this.pos >= this.input.length) return undefined;
    const cp = this.input.codePointAt(this.pos) ?? 0;
    return String.fromCodePoint(cp);
  }

  private next(): string | undefined {
    const c = this.peek();
    if (c !== undefined) this.pos += c.length;
    return c;
  }

  private accept(valid: string): boolean {
    const c = this.peek();
    if (c !== undefined && valid.includes(c)) {
      this.pos += c.length;
      return true;
    }
    return false;
  }

  private acceptRun(valid: string): void {
    while (this.accept(valid)) {
      // absorb
    }
  }

  private lexText(): boolean {
    const x = this.input.indexOf(LEFT_DELIM, this.pos);
    if (x === -1) {
      this.pos = this.input.length;
      if (this.pos > this.start) this.emit('text');
      this.emit('eof', '');
      return true;
    }
    if (x > this.pos) {
      const trim = hasLeftTrimMarker(this.input, x + LEFT_DELIM.length)
        ? trimmedRightLength(this.input, this.start, x)
        : 0;
      this.pos = x - trim;
      const text = this.input.slice(this.start, this.pos);
      if (text.length > 0) this.tokens.push({ type: 'text', pos: this.start, val: text });
      this.pos = x;
      this.start = x;
    }
    return this.lexLeftDelim();
  }

  private lexLeftDelim(): boolean {
    this.pos += LEFT_DELIM.length;
    const trim = hasLeftTrimMarker(this.input, this.pos);
    const afterMarker = trim ? 2 : 0;
    if (this.input.startsWith(LEFT_COMMENT, this.pos + afterMarker)) {
      this.pos += afterMarker;
      this.start = this.pos;
      return this.lexComment();
    }
    this.emit('leftDelim');
    this.insideAction = true;
    this.pos += afterMarker;
    this.start = this.pos;
    this.parenDepth = 0;
    return false;
  }

  private lexComment(): boolean {
    this.pos += LEFT_COMMENT.length;
    const end = this.input.indexOf(RIGHT_COMMENT, this.pos);
    if (end === -1) return this.fail('unclosed comment');
    this.pos = end + RIGHT_COMMENT.length;
    const [delim, trim] = this.atRightDelim();
    if (!delim) return this.fail('comment ends before closing delimiter');
    if (trim) this.pos += 2;
    this.pos += RIGHT_DELIM.length;
    if (trim) this.pos = trimmedLeftEnd(this.input, this.pos);
    this.start = this.pos;
    return false;
  }

  private atRightDelim(): [delim: boolean, trim: boolean] {
    if (hasRightTrimMarker(this.input, this.pos) && this.input.startsWith(RIGHT_DELIM, this.pos + 2)) {
      return [true, true];
    }
    return [this.input.startsWith(RIGHT_DELIM, this.pos), false];
  }

  private lexRightDelim(): boolean {
    const trim = hasRightTrimMarker(this.input, this.pos);
    if (trim) {
      this.pos += 2;
      this.start = this.pos;
    }
    this.pos += RIGHT_DELIM.length;
    this.emit('rightDelim');
    if (trim) {
      this.pos = trimmedLeftEnd(this.input, this.pos);
      this.start = this.pos;
    }
    this.insideAction = false;
    return false;
  }

  private lexInsideAction(): boolean {
    const [delim] = this.atRightDelim();
    if (delim) {
      if (this.parenDepth === 0) return this.lexRightDelim();
      return this.fail('unclosed left paren');
    }
    const c = this.peek();
    if (c === undefined) return this.fail('unclosed action');
    if (isSpace(c)) return this.lexSpace();
    this.pos += c.length;
    switch (c) {
      case '=':
        return this.emit('assign');
      case ':':
        if (this.next() !== '=') return this.fail('expected :=');
        return this.emit('declare');
      case '|':
        return this.emit('pipe');
      case '"':
        return this.lexQuoted('"');
      case '`':
        return this.lexRawQuote();
      case '$':
        return this.lexVariable();
      case "'":
        return this.lexQuoted("'");
      case '(':
        this.parenDepth++;
        return this.emit('leftParen');
      case ')':
        this.parenDepth--;
        if (this.parenDepth < 0) return this.fail('unexpected right paren');
        return this.emit('rightParen');
    }
    if (c === '.') {
      const n = this.input[this.pos];
      if (n !== undefined && (n < '0' || n > '9')) return this.lexFieldOrVariable('field');
    }
    if (c === '.' || c === '+' || c === '-' || (c >= '0' && c <= '9')) {
      this.pos -= c.length;
      return this.lexNumber();
    }
    if (isAlphaNumeric(c)) {
      this.pos -= c.length;
      return this.lexIdentifier();
    }
    const cp = c.codePointAt(0) ?? 0;
    if (cp >= 0x20 && cp < 0x7f) return this.emit('char');
    return this.fail(`unrecognized character in action: ${describeRune(c)}`);
  }

  private lexSpace(): boolean {
    let spaces = 0;
    while (isSpace(this.peek())) {
      this.pos++;
      spaces++;
    }
    // A run of spaces may end in " -}}"; that last space belongs to the trim marker.
    if (hasRightTrimMarker(this.input, this.pos - 1) && this.input.startsWith(RIGHT_DELIM, this.pos + 1)) {
      this.pos--;
      if (spaces === 1) return this.lexRightDelim();
    }
    return this.emit('space');
  }

  private lexIdentifier(): boolean {
    while (isAlphaNumeric(this.peek())) this.next();
    const word = this.input.slice(this.start, this.pos);
    if (!this.atTerminator()) return this.fail(`bad character ${describeRune(this.peek() ?? '')}`);
    const keyword = KEYWORDS.get(word);
    if (keyword !== undefined) return this.emit(keyword);
    if (word === 'true' || word === 'false') return this.emit('bool');
    return this.emit('identifier');
  }

  private lexVariable(): boolean {
    if (this.atTerminator()) return this.emit('variable');
    return this.lexFieldOrVariable('variable');
  }

  /** The leading `.` or `$` has been consumed. */
  private lexFieldOrVariable(type: 'field' | 'variable'): boolean {
    if (this.atTerminator()) return this.emit(type === 'variable' ? 'variable' : 'dot');
    while (isAlphaNumeric(this.peek())) this.next();
    if (!this.atTerminator()) return this.fail(`bad character ${describeRune(this.peek() ?? '')}`);
    return this.emit(type);
  }

  /** What may follow an identifier: `.X.Y` splits into two fields; `$x+2` is not accepted. */
  private atTerminator(): boolean {
    const c = this.peek();
    if (c === undefined || isSpace(c)) return true;
    switch (c) {
      case '.':
      case ',':
      case '|':
      case ':':
      case ')':
      case '(':
        return true;
    }
    return this.input.startsWith(RIGHT_DELIM, this.pos);
  }

  private lexNumber(): boolean {
    if (!this.scanNumber()) return this.fail(`bad number syntax: ${JSON.stringify(this.input.slice(this.start, this.pos))}`);
    const sign = this.peek();
    if (sign === '+' || sign === '-') {
      // Complex: 1+2i. No spaces, must end in 'i'.
      if (!this.scanNumber() || this.input[this.pos - 1] !== 'i') {
        return this.fail(`bad number syntax: ${JSON.stringify(this.input.slice(this.start, this.pos))}`);
      }
      return this.emit('complex');
    }
    return this.emit('number');
  }

  // Deliberately loose, like Go's: the parser rejects what does not convert.
  private scanNumber(): boolean {
    this.accept('+-');
    let digits = '0123456789_';
    if (this.accept('0')) {
      if (this.accept('xX')) digits = '0123456789abcdefABCDEF_';
      else if (this.accept('oO')) digits = '01234567_';
      else if (this.accept('bB')) digits = '01_';
    }
    this.acceptRun(digits);
    if (this.accept('.')) this.acceptRun(digits);
    if (digits.length === 11 && this.accept('eE')) {
      this.accept('+-');
      this.acceptRun('0123456789_');
    }
    if (digits.length === 23 && this.accept('pP')) {
      this.accept('+-');
      this.acceptRun('0123456789_');
    }
    this.accept('i');
    if (isAlphaNumeric(this.peek())) {
      this.next();
      return false;
    }
    return true;
  }

  /**
   * A quoted string (`"`) or character constant (`'`), its opening quote
   * read: up to the closing one, past backslash escapes, on one line (Go's
   * lexQuote and lexChar).
   */
  private lexQuoted(close: '"' | "'"): boolean {
    const unterminated = close === '"' ? 'unterminated quoted string' : 'unterminated character constant';
    for (;;) {
      const c = this.next();
      if (c === '\\') {
        const e = this.next();
        if (e !== undefined && e !== '\n') continue;
        return this.fail(unterminated);
      }
      if (c === undefined || c === '\n') return this.fail(unterminated);
      if (c === close) return this.emit(close === '"' ? 'string' : 'charConstant');
    }
  }

  private lexRawQuote(): boolean {
    const end = this.input.indexOf('`', this.pos);
    if (end === -1) return this.fail('unterminated raw quoted string');
    this.pos = end + 1;
    return this.emit('rawString');
  }
}

export function lex(input: string): Token[] {
  return new Lexer(input).run();
}
