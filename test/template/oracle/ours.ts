/** Our engine, run the way spire-reconciler runs it, reporting in the oracle's terms. */
import { TemplateExecError, TemplateLimitError, TemplateParseError, compileTemplate } from '../../../src/template/index.js';
import type { CompiledTemplate } from '../../../src/template/index.js';
import type { Outcome, RenderCase } from './protocol.js';

function failure(err: unknown): Outcome {
  if (err instanceof TemplateParseError) return { phase: 'parse', error: err.message };
  // Over the size bounds Go does not have: refused where the object is read, a documented limit.
  if (err instanceof TemplateLimitError) return { phase: 'parse', error: err.message, unsupported: true };
  if (err instanceof TemplateExecError) return { phase: 'exec', error: err.message, unsupported: err.unsupported };
  return { phase: 'crash', error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
}

export function renderOurs(c: RenderCase): Outcome {
  let template: CompiledTemplate;
  try {
    template = compileTemplate(c.template, c.name);
  } catch (err) {
    return failure(err);
  }
  try {
    return { phase: 'ok', output: template.render(c.data) };
  } catch (err) {
    return failure(err);
  }
}
