/**
 * What can be known of every value a ClusterSPIFFEID template renders before
 * any pod is seen, from the template's outline (its top-level text, printed
 * by every render, and the actions between). A template made only of text is
 * checked as the value it always renders; one with actions is refused only
 * when its fixed text alone makes every render invalid (a wrong scheme, a
 * character no SPIFFE ID holds, a `..` segment between fixed slashes). Data a
 * pod supplies is checked per pod, when the entry is rendered.
 */
import { errorMessage } from '../api/index.js';
import { formatSpiffeId, lengthProblem, parseSpiffeId, SpiffeIdReason, trustDomainNameProblem, workloadProblem } from '../spiffe/index.js';
import { type CompiledTemplate, countActions, MAX_TEMPLATE_ACTIONS, templateLimitProblem } from '../template/index.js';
import { DNS_CHARS, dnsNameCheck, selectorValueProblem } from './spire-accepts.js';

const SCHEME = 'spiffe://';

/**
 * Template data fields whose every value is free of "/" and ":": the
 * configured trust domain (checked when the config is read) and Kubernetes
 * names and UIDs (the API server takes only DNS labels, subdomains and UIDs
 * there). Printed right after a part of the scheme, they cannot complete it.
 */
const NO_SLASH_OR_COLON = new Set([
  'TrustDomain',
  'PodMeta.Name',
  'PodMeta.Namespace',
  'PodMeta.UID',
  'PodSpec.ServiceAccountName',
  'PodSpec.NodeName',
  'NodeMeta.Name',
  'NodeMeta.UID',
]);
/** Every character a SPIFFE ID may hold anywhere (scheme, trust domain, path). */
const ID_CHARS = /^[A-Za-z0-9._\-/:]*$/;

/** The whole output of a template without actions, else undefined. */
function literalOf(t: CompiledTemplate): string | undefined {
  if (t.outline.some((part) => part === null)) return undefined;
  return t.outline.join('');
}

function firstOutside(text: string, allowed: RegExp): string | undefined {
  return allowed.test(text) ? undefined : [...text].find((c) => !allowed.test(c));
}

/** `invalid SPIFFE ID "<id>": <reason>`, as the per-pod render words it, for a template that is one fixed ID. */
function literalIdProblem(literal: string): string | undefined {
  let id;
  try {
    id = parseSpiffeId(literal);
  } catch (err) {
    return `invalid SPIFFE ID ${JSON.stringify(literal)}: ${errorMessage(err)}`;
  }
  // The trust domain is compared with the configured one by the caller, which may not know it.
  const problem = workloadProblem(id, id.trustDomain) ?? lengthProblem(id);
  return problem === undefined ? undefined : `invalid SPIFFE ID ${JSON.stringify(formatSpiffeId(id))}: ${problem}`;
}

/** A fixed `/.` or `/..` segment: slashes on both sides, or a slash before and the end of the template after. */
function dotSegment(text: string, isLast: boolean): boolean {
  return /\/\.\.?(?=\/)/.test(text) || (isLast && /\/\.\.?$/.test(text));
}

export function spiffeIdTemplateProblem(t: CompiledTemplate): string | undefined {
  const literal = literalOf(t);
  if (literal !== undefined) return literalIdProblem(literal);
  const every = (why: string) => `every SPIFFE ID it renders is invalid: ${why}`;
  const parts = t.outline;
  const first = parts[0];
  if (typeof first === 'string' && !first.startsWith(SCHEME) && !SCHEME.startsWith(first)) {
    return every(`${SpiffeIdReason.wrongScheme} (it begins ${JSON.stringify(first.slice(0, SCHEME.length))})`);
  }
  // "spiffe:/" then {{ .TrustDomain }}: the scheme's rest can only come from the action, and that field never holds it.
  const next = t.printedFields[1];
  if (typeof first === 'string' && first.length < SCHEME.length && next !== undefined && NO_SLASH_OR_COLON.has(next)) {
    return every(`${SpiffeIdReason.wrongScheme}: it begins ${JSON.stringify(first)} and then .${next}, which holds no "/" or ":", so never "${SCHEME}"`);
  }
  for (const text of parts) {
    const bad = text === null ? undefined : firstOutside(text, ID_CHARS);
    if (bad !== undefined) return every(`it holds ${JSON.stringify(bad)}, and SPIFFE IDs hold only letters, numbers, dots, dashes, underscores and slashes`);
  }
  // The rest needs to know where the path begins: only when the scheme is fixed text.
  if (typeof first !== 'string' || !first.startsWith(SCHEME)) return undefined;
  const afterScheme = first.slice(SCHEME.length);
  const slash = afterScheme.indexOf('/');
  if (slash !== -1) {
    const tdProblem = trustDomainNameProblem(afterScheme.slice(0, slash));
    if (tdProblem !== undefined) return every(tdProblem);
    const path = afterScheme.slice(slash);
    // "/spire" followed by an action may become "/spire-x"; "/spire/" is reserved whatever follows.
    if (path.startsWith('/spire/')) return every('the path is in SPIRE\'s reserved namespace (/spire)');
  }
  const last = parts.length - 1;
  for (let i = 0; i < parts.length; i++) {
    const text = i === 0 ? afterScheme : parts[i];
    if (text === null || text === undefined) continue;
    if (text.includes('//')) return every(SpiffeIdReason.emptySegment);
    if (dotSegment(text, i === last)) return every(SpiffeIdReason.dotSegment);
  }
  const tail = parts[last];
  if (typeof tail === 'string' && tail.endsWith('/')) return every(SpiffeIdReason.trailingSlash);
  return undefined;
}

export function dnsNameTemplateProblem(t: CompiledTemplate): string | undefined {
  const literal = literalOf(t);
  if (literal !== undefined) return dnsNameCheck(literal);
  for (const text of t.outline) {
    const bad = text === null ? undefined : firstOutside(text, DNS_CHARS);
    if (bad !== undefined) return `every DNS name it renders is invalid: it holds ${JSON.stringify(bad)}, and DNS names hold only letters, digits, "-", "_" and "."`;
  }
  return undefined;
}

/** A fixed selector template must parse as one (`parse` is the renderer's own parser); a NUL anywhere is never stored. */
export function selectorTemplateProblem(t: CompiledTemplate, parse: (text: string) => { type: string; value: string }): string | undefined {
  const literal = literalOf(t);
  if (literal !== undefined) {
    try {
      return selectorValueProblem(parse(literal));
    } catch (err) {
      return errorMessage(err);
    }
  }
  if (t.outline.some((text) => text?.includes('\u0000'))) return 'every selector it renders holds a NUL character, which SPIRE cannot store';
  return undefined;
}

/**
 * One ClusterSPIFFEID's templates together: each is compiled (its heap grows
 * with its actions) and rendered for every pod it selects, so the object as a
 * whole is bounded too, not only each template (template/limits.ts).
 */
export const MAX_OBJECT_TEMPLATES = 256;
export const MAX_OBJECT_ACTIONS = 4 * MAX_TEMPLATE_ACTIONS;

/**
 * The first template over its own limits or over the object's budget, and
 * why; or undefined. Counting is linear and allocates nothing, so it runs before any
 * template is compiled.
 */
export function templateBudgetProblem(templates: readonly { field: string; source: string }[]): { field: string; message: string } | undefined {
  let actions = 0;
  for (let i = 0; i < templates.length; i++) {
    const { field, source } = templates[i]!;
    if (i === MAX_OBJECT_TEMPLATES) {
      return { field, message: `a ClusterSPIFFEID may have at most ${MAX_OBJECT_TEMPLATES} templates in all; this one has ${templates.length}` };
    }
    const own = templateLimitProblem(source);
    if (own !== undefined) return { field, message: own };
    actions += countActions(source);
    if (actions > MAX_OBJECT_ACTIONS) {
      return { field, message: `a ClusterSPIFFEID may have at most ${MAX_OBJECT_ACTIONS} template actions in all; its templates reach ${actions} here` };
    }
  }
  return undefined;
}
