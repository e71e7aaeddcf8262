/** Where a position in the template source is, in the terms Go's template errors use. */
interface SourcePosition {
  /** 1-based line. */
  readonly line: number;
  /** Byte offset within the line, counted from 0, as Go's text/template reports it. */
  readonly column: number;
}

/** Go reports columns in UTF-8 bytes; templates with non-ASCII text must count the same way. */
export function positionOf(source: string, offset: number): SourcePosition {
  let line = 1;
  let lineStart = 0;
  for (let i = source.indexOf('\n'); i !== -1 && i < offset; i = source.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: Buffer.byteLength(source.slice(lineStart, offset), 'utf8') };
}

/** The template does not parse; Go's webhook rejects such a template at admission. */
export class TemplateParseError extends Error {
  override readonly name = 'TemplateParseError';
  readonly line: number;
  readonly column: number;
  /** Offset of the offending token in the template string (UTF-16 code units). */
  readonly offset: number;
  /** The message without the location prefix. */
  readonly reason: string;

  constructor(source: string, offset: number, reason: string) {
    const { line, column } = positionOf(source, offset);
    super(`template: ${line}:${column}: ${reason}`);
    this.line = line;
    this.column = column;
    this.offset = offset;
    this.reason = reason;
  }
}

/**
 * Rendering failed, where spire-controller-manager's template.Execute would
 * have failed too, or (unsupported) where Go would run code spire-reconciler
 * does not reproduce (docs/templates.md, "Documented limits"): an error, never a guess.
 */
export class TemplateExecError extends Error {
  override readonly name = 'TemplateExecError';
  readonly line: number;
  readonly column: number;
  /** The template fragment being evaluated, as Go shows it between `<` and `>`. */
  readonly context: string;
  /** The message without the location prefix. */
  readonly reason: string;
  /** Go would have rendered something here that spire-reconciler does not reproduce. */
  readonly unsupported: boolean;

  constructor(position: SourcePosition, context: string, reason: string, options?: ErrorOptions & { unsupported?: boolean }) {
    super(`template: ${position.line}:${position.column}: executing at <${context}>: ${reason}`, options);
    this.line = position.line;
    this.column = position.column;
    this.context = context;
    this.reason = reason;
    this.unsupported = options?.unsupported === true;
  }
}

/** A node of a template, for error messages. */
export interface Site {
  /** Offset of the node in the Go template source. */
  readonly pos: number;
  /** The node as Go prints it in error messages. */
  readonly context: string;
}

/**
 * Raised by the executor (exec.ts) at the node where Go's Execute fails; the
 * compiled template knows its source and turns it into a TemplateExecError.
 */
export class ExecFault extends Error {
  constructor(
    readonly site: Site,
    message: string,
    readonly unsupported = false,
  ) {
    super(message);
  }
}

/**
 * An error as Go's template engine words it, raised below the executor, which
 * knows the node being evaluated and turns it into an ExecFault there.
 */
export class GoError extends Error {}

/**
 * An argument that Go rejects before calling the function (its messages are
 * not prefixed with "error calling <fn>:").
 */
export class GoArgumentError extends GoError {}

/** Where Go would run code spire-reconciler does not reproduce (docs/templates.md, "Documented limits"). */
export class Unsupported extends GoError {}
