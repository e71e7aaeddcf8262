/**
 * What the differential test sends to Go and to our engine, and what comes
 * back from each.
 */
import type { TemplateData } from '../../../src/template/index.js';

/** One template rendered once: the name upstream parses it under, its text and the data. */
export interface RenderCase {
  /** spiffeIDTemplate, dnsNameTemplate, workloadSelectorTemplate or customParentIDTemplate (upstream's names). */
  readonly name: string;
  readonly template: string;
  readonly data: TemplateData;
}

/**
 * ok: rendered; parse/exec: template.Parse or Execute failed; data: Go could
 * not decode the data (a broken case, not a difference); panic: Go's Execute
 * panicked; crash: our engine threw something other than its two errors;
 * timeout: Go's render ran away (a generator bug: ranges must stay small).
 */
export type Phase = 'ok' | 'parse' | 'exec' | 'data' | 'panic' | 'crash' | 'timeout';

export interface Outcome {
  readonly phase: Phase;
  readonly output?: string;
  /** Go's output when it is not valid UTF-8 (a JavaScript string cannot hold it). */
  readonly outputBytes?: Buffer;
  readonly error?: string;
  /** Ours only: the failure is one of the documented limits (docs/templates.md) (TemplateExecError.unsupported). */
  readonly unsupported?: boolean;
}
