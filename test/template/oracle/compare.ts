/**
 * What counts as agreeing with Go: the same output for a render, the same
 * phase (parse or execute) for a failure. Error wording is not compared (see
 * docs/templates.md). Cases under a documented limit are set aside by rule.
 */
import { toBytes } from '../../../src/template/bytes.js';
import type { Outcome } from './protocol.js';

/**
 * Why a case is outside the contract (docs/templates.md, "Documented limits"), or
 * undefined when it is inside: our engine refuses, with an error marked
 * unsupported, what it does not reproduce or what is over its bounds, where
 * Go does something else.
 */
export function documentedLimit(go: Outcome, ours: Outcome): string | undefined {
  if (ours.unsupported === true && (go.phase === 'ok' || go.phase !== ours.phase)) return 'unsupported';
  return undefined;
}

/** A description of how our outcome differs from Go's, or undefined when they agree. */
export function difference(go: Outcome, ours: Outcome): string | undefined {
  if (go.phase === 'data') throw new Error(`the test data does not decode in Go: ${go.error}`);
  if (go.phase === 'timeout') throw new Error(`Go did not finish rendering the case: ${go.error}`);
  if (go.phase !== ours.phase) {
    return `Go: ${go.phase}${go.error === undefined ? '' : ` (${go.error})`}; ours: ${ours.phase}${ours.error === undefined ? '' : ` (${ours.error})`}`;
  }
  if (go.phase === 'ok') {
    // Bytes that are not UTF-8 are compared as bytes (our engine holds them as U+DC80 to U+DCFF, see bytes.ts).
    const goBytes = go.outputBytes ?? Buffer.from(go.output ?? '', 'utf8');
    if (!goBytes.equals(toBytes(ours.output ?? ''))) {
      return `output differs: Go ${JSON.stringify(go.output ?? `bytes ${goBytes.toString('hex')}`)}; ours ${JSON.stringify(ours.output)}`;
    }
  }
  return undefined;
}
