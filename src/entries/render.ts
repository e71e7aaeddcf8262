import { type Cause, type ClusterSPIFFEID, type ClusterStaticEntry, compileLabelSelector, errorMessage, type Failure, type FieldProblem, type LabelMatcher, LabelSelectorError, type Node, ownerOf, type Pod } from '../api/index.js';
import { formatSpiffeId, lengthProblem, memberProblem, memberRule, parseSpiffeId, parseTrustDomain, workloadProblem, workloadRule } from '../spiffe/index.js';
import { type CompiledTemplate, TEMPLATE_NAMES, compileTemplate, type TemplateData } from '../template/index.js';
import { type EntrySpec, type Owner, POD_UID_SELECTOR_PREFIX, type Selector } from './model.js';
import {
  dnsNameCheck,
  dnsNameRefused,
  DUPLICATE_SELECTOR_RULE,
  duplicateSelector,
  entryBytes,
  ENTRY_SIZE_RULE,
  entrySizeProblem,
  hintProblem,
  MAX_ENTRY_BYTES,
  NUL_RULE,
  selectorListedTwice,
  selectorValueProblem,
  storeSvidProblem,
  ttlSeconds,
} from './spire-accepts.js';
import { dnsNameTemplateProblem, selectorTemplateProblem, spiffeIdTemplateProblem, templateBudgetProblem } from './template-checks.js';

export interface RenderSettings {
  trustDomain: string;
  clusterName: string;
  clusterDomain: string;
  parentIdTemplate: CompiledTemplate;
}

/** A ClusterSPIFFEID with its templates compiled and its fixed fields checked once, not per pod. */
export interface ParsedClusterSPIFFEID {
  owner: Owner;
  spiffeId: CompiledTemplate;
  dnsNames: CompiledTemplate[];
  workloadSelectors: CompiledTemplate[];
  namespaceSelector: LabelMatcher;
  podSelector: LabelMatcher;
  x509SvidTtl: number;
  jwtSvidTtl: number;
  federatesWith: string[];
  admin: boolean;
  downstream: boolean;
  hint: string;
  autoPopulateDNSNames: boolean;
  fallback: boolean;
}

function attempt<T>(errors: FieldProblem[], field: string, fn: () => T): T | undefined {
  try {
    return fn();
  } catch (err) {
    // A selector names each of its problems, with its place inside the selector.
    if (err instanceof LabelSelectorError) errors.push(...err.problems.map((p) => ({ field: `${field}.${p.field}`, message: p.message })));
    else errors.push({ field, message: errorMessage(err) });
    return undefined;
  }
}

/**
 * The trust domain a SPIFFE ID template names literally: the text between
 * `spiffe://` and the first `/` (or the end), when the template starts with
 * `spiffe://` and that text holds no template action. Undefined when the trust
 * domain is computed (`spiffe://{{ .TrustDomain }}/...`) or the template does
 * not start with a literal scheme (e.g. inside `{{ if }}` branches): then only
 * rendering can tell, per pod.
 */
function literalTrustDomain(template: string): string | undefined {
  const scheme = 'spiffe://';
  if (!template.startsWith(scheme)) return undefined;
  const rest = template.slice(scheme.length);
  const slash = rest.indexOf('/');
  const td = slash === -1 ? rest : rest.slice(0, slash);
  return td.includes('{{') ? undefined : td;
}

/**
 * Checks every field and reports all problems at once, each naming its field.
 * With `trustDomain`, a `spiffeIDTemplate` that names another trust domain
 * literally is a problem too: every ID it renders would be refused, so it can
 * be refused before any pod is seen (the webhook and `validate` pass it; the
 * reconcile does not: it refuses such an ID for each pod it renders).
 */
export function parseClusterSPIFFEID(
  obj: ClusterSPIFFEID,
  trustDomain?: string,
): { parsed: ParsedClusterSPIFFEID } | { errors: FieldProblem[]; selectors: Pick<ParsedClusterSPIFFEID, 'namespaceSelector' | 'podSelector' | 'fallback'> } {
  const errors: FieldProblem[] = [];
  const spec = obj.spec ?? ({} as ClusterSPIFFEID['spec']);
  const dnsSources = spec.dnsNameTemplates ?? [];
  const selectorSources = spec.workloadSelectorTemplates ?? [];
  // Before anything is compiled: a template over the limits would cost its heap in the compile itself.
  const overBudget = templateBudgetProblem([
    { field: 'spec.spiffeIDTemplate', source: spec.spiffeIDTemplate ?? '' },
    ...dnsSources.map((source, i) => ({ field: `spec.dnsNameTemplates[${i}]`, source })),
    ...selectorSources.map((source, i) => ({ field: `spec.workloadSelectorTemplates[${i}]`, source })),
  ]);
  if (overBudget) return { errors: [overBudget], selectors: selectionOf(spec) };
  // Each kind of template is parsed under upstream's name for it.
  const compile = (field: string, source: string, name: string, check: (t: CompiledTemplate) => string | undefined) =>
    attempt(errors, field, () => {
      const t = compileTemplate(source, name);
      const problem = check(t);
      if (problem !== undefined) throw new Error(problem);
      return t;
    });
  if (!spec.spiffeIDTemplate) errors.push({ field: 'spec.spiffeIDTemplate', message: 'empty SPIFFEID template' });
  const spiffeId = spec.spiffeIDTemplate ? compile('spec.spiffeIDTemplate', spec.spiffeIDTemplate, TEMPLATE_NAMES.spiffeID, spiffeIdTemplateProblem) : undefined;
  const literal = trustDomain !== undefined && typeof spec.spiffeIDTemplate === 'string' ? literalTrustDomain(spec.spiffeIDTemplate) : undefined;
  if (literal !== undefined && literal !== trustDomain) {
    errors.push({ field: 'spec.spiffeIDTemplate', message: `trust domain "${literal}" is not the configured trust domain "${trustDomain}"` });
  }
  const dnsNames = dnsSources.map((t, i) => compile(`spec.dnsNameTemplates[${i}]`, t, TEMPLATE_NAMES.dnsName, dnsNameTemplateProblem));
  const workloadSelectors = selectorSources.map((t, i) => {
    const field = `spec.workloadSelectorTemplates[${i}]`;
    const earlier = selectorSources.indexOf(t);
    // The same template renders the same selector for every pod: every entry would list it twice.
    if (earlier < i) errors.push({ field, message: `same template as spec.workloadSelectorTemplates[${earlier}]: every entry would list its selector twice, which SPIRE refuses` });
    return compile(field, t, TEMPLATE_NAMES.workloadSelector, (c) => selectorTemplateProblem(c, parseSelector));
  });
  const namespaceSelector = attempt(errors, 'spec.namespaceSelector', () => compileLabelSelector(spec.namespaceSelector));
  const podSelector = attempt(errors, 'spec.podSelector', () => compileLabelSelector(spec.podSelector));
  const x509SvidTtl = attempt(errors, 'spec.ttl', () => ttlSeconds(spec.ttl));
  const jwtSvidTtl = attempt(errors, 'spec.jwtTtl', () => ttlSeconds(spec.jwtTtl));
  const federatesWith = (spec.federatesWith ?? []).map((td, i) => attempt(errors, `spec.federatesWith[${i}]`, () => parseTrustDomain(td)));
  const hint = spec.hint ?? '';
  const badHint = hintProblem(hint);
  if (badHint !== undefined) errors.push({ field: 'spec.hint', message: badHint });
  // An invalid object still selects, for its status: what it would cover, and so how many pods
  // it fails.
  if (errors.length > 0) return { errors, selectors: selectionOf(spec) };
  return {
    parsed: {
      owner: ownerOf('ClusterSPIFFEID', obj),
      spiffeId: spiffeId!,
      dnsNames: dnsNames as CompiledTemplate[],
      workloadSelectors: workloadSelectors as CompiledTemplate[],
      namespaceSelector: namespaceSelector!,
      podSelector: podSelector!,
      x509SvidTtl: x509SvidTtl!,
      jwtSvidTtl: jwtSvidTtl!,
      federatesWith: [...new Set(federatesWith as string[])],
      admin: spec.admin ?? false,
      downstream: spec.downstream ?? false,
      hint,
      autoPopulateDNSNames: spec.autoPopulateDNSNames ?? false,
      fallback: spec.fallback ?? false,
    },
  };
}

const ALL: LabelMatcher = () => true;

/**
 * What an invalid ClusterSPIFFEID selects, for its status. A selector that
 * cannot be read counts as selecting everything: which pods it meant is
 * unknown, and every pod entry is kept meanwhile.
 */
function selectionOf(spec: ClusterSPIFFEID['spec']): Pick<ParsedClusterSPIFFEID, 'namespaceSelector' | 'podSelector' | 'fallback'> {
  const readable = (selector: ClusterSPIFFEID['spec']['namespaceSelector']): LabelMatcher => {
    try {
      return compileLabelSelector(selector);
    } catch {
      return ALL;
    }
  };
  return { namespaceSelector: readable(spec.namespaceSelector), podSelector: readable(spec.podSelector), fallback: spec.fallback ?? false };
}

/**
 * A render that failed: the message `plan` and `explain` show for the pod,
 * and its cause, worded without the pod's values, that reports group by.
 */
class RenderError extends Error {
  constructor(
    message: string,
    readonly why: Cause,
  ) {
    super(message);
  }
}

/** The same failure with what was being rendered said in front of its message. */
function prefixed(prefix: string, err: RenderError): RenderError {
  return new RenderError(`${prefix}${err.message}`, err.why);
}

/**
 * A rendered ID must parse, be in our trust domain, and pass SPIRE's rules for
 * its role: a parent ID is a member ID (a path), a SPIFFE ID a workload ID
 * (and not under /spire). `field` names the template, for the cause.
 */
function checkIdInTrustDomain(rendered: string, trustDomain: string, role: 'member' | 'workload', field: string): string {
  const what = role === 'member' ? 'parent ID' : 'SPIFFE ID';
  const refuse = (shown: string, reason: string, rule: string): never => {
    throw new RenderError(`invalid SPIFFE ID "${shown}": ${reason}`, { text: `${field} renders ${rule}`, value: JSON.stringify(shown) });
  };
  let id;
  try {
    id = parseSpiffeId(rendered);
  } catch (err) {
    const reason = errorMessage(err);
    return refuse(rendered, reason, `an invalid ${what}: ${reason}`);
  }
  if (id.trustDomain !== trustDomain) {
    return refuse(rendered, `expected trust domain "${trustDomain}" but got "${id.trustDomain}"`, `a ${what} outside trust domain "${trustDomain}"`);
  }
  const tooLong = lengthProblem(id);
  if (tooLong) return refuse(`${rendered.slice(0, 64)}...`, tooLong, `an invalid ${what}: ${tooLong}`);
  const rule = role === 'member' ? memberRule(id, trustDomain) : workloadRule(id, trustDomain);
  if (rule) return refuse(rendered, `"${formatSpiffeId(id)}" ${rule}`, `a ${what} that ${rule}`);
  return formatSpiffeId(id);
}

// Selector types are a handful of words (k8s, unix, spiffe_id, ...): one string each, not one per entry.
const selectorTypes = new Map<string, string>();
function internType(type: string): string {
  const known = selectorTypes.get(type);
  if (known !== undefined) return known;
  if (selectorTypes.size < 64) selectorTypes.set(type, type);
  return type;
}

/** A selector that does not parse: its text, and the rule it breaks. */
class SelectorError extends Error {
  constructor(
    readonly text: string,
    readonly rule: string,
  ) {
    super(`invalid selector "${text}": ${rule}`);
  }
}

function parseSelector(s: string): Selector {
  const colon = s.indexOf(':');
  if (colon === -1) throw new SelectorError(s, 'expected at least one colon to separate the type from the value');
  const type = internType(s.slice(0, colon));
  const value = s.slice(colon + 1);
  if (type === '') throw new SelectorError(s, 'type cannot be empty');
  if (value === '') throw new SelectorError(s, 'value cannot be empty');
  return { type, value };
}

/**
 * Rendered workload selectors repeat across pods (`k8s:ns:<namespace>`,
 * `k8s:sa:<account>`): the first texts seen each get one parsed selector,
 * shared by every entry that renders it, instead of one object and value
 * string per entry. Selectors are never changed in
 * place. Bounded, so that per-pod texts (a pod name) cost a fixed amount.
 */
const sharedSelectors = new Map<string, Selector>();
const SHARED_SELECTORS_MAX = 16_384;
function sharedSelector(text: string): Selector {
  const known = sharedSelectors.get(text);
  if (known !== undefined) return known;
  const selector = parseSelector(text);
  if (sharedSelectors.size < SHARED_SELECTORS_MAX) sharedSelectors.set(text, selector);
  return selector;
}

/** Renders one template; `field` and `index` name it in a failure's cause (worded only on failure: this runs per pod). */
function run(what: string, field: string, index: number | undefined, template: CompiledTemplate, data: TemplateData): string {
  try {
    return template.render(data);
  } catch (err) {
    const reason = errorMessage(err);
    throw new RenderError(`failed to render ${what}: ${reason}`, { text: `${field}${index === undefined ? '' : `[${index}]`} fails to render: ${reason}` });
  }
}

/** What a template sees, as upstream builds it; the parent ID template sees no pod (PodMeta and PodSpec are null). */
function templateData(settings: RenderSettings, node: Node, pod?: Pod): TemplateData {
  return {
    TrustDomain: settings.trustDomain,
    ClusterName: settings.clusterName,
    ClusterDomain: settings.clusterDomain,
    PodMeta: pod ? pod.metadata : null,
    PodSpec: pod ? (pod.spec ?? {}) : null,
    NodeMeta: node.metadata,
    NodeSpec: node.spec ?? {},
  };
}

/**
 * The parent ID depends on the node only (the template sees no pod data, as
 * upstream), so callers cache it per node and pass it in.
 */
export function renderParentId(node: Node, settings: RenderSettings): { parentId: string } | { error: Failure } {
  const field = 'parentIDTemplate (config)';
  try {
    let text: string;
    try {
      text = settings.parentIdTemplate.render(templateData(settings, node));
    } catch (err) {
      const reason = errorMessage(err);
      throw new RenderError(reason, { text: `${field} fails to render: ${reason}` });
    }
    return { parentId: checkIdInTrustDomain(text, settings.trustDomain, 'member', field) };
  } catch (err) {
    // The template is the config's, not the ClusterSPIFFEID's, and fails per node: say which of each.
    const message = errorMessage(err);
    const why = err instanceof RenderError ? err.why : { text: `${field} fails to render: ${message}` };
    const at = `node ${node.metadata.name}`;
    return { error: { message: `parentIDTemplate: ${at}: ${message}`, cause: { text: why.text, value: why.value === undefined ? at : `${at}: ${why.value}` } } };
  }
}

/** A rendered workload selector SPIRE would refuse. Built only on failure: the success path makes no closure per pod. */
function selectorRefused(index: number, text: string, reason: string, rule: string): RenderError {
  return new RenderError(`failed to render workload selector: ${reason}`, { text: `spec.workloadSelectorTemplates[${index}] renders an invalid selector: ${rule}`, value: JSON.stringify(text) });
}

/** Renders one pod's entry; every failure is a message naming what failed, and its cause. */
export function renderPodEntry(
  spec: ParsedClusterSPIFFEID,
  pod: Pod,
  node: Node,
  parentId: string,
  settings: RenderSettings,
  serviceDnsNames: readonly string[],
): { spec: EntrySpec } | { error: Failure } {
  const data = templateData(settings, node, pod);
  try {
    const spiffeIdText = run('SPIFFE ID', 'spec.spiffeIDTemplate', undefined, spec.spiffeId, data);
    let spiffeId: string;
    try {
      spiffeId = checkIdInTrustDomain(spiffeIdText, settings.trustDomain, 'workload', 'spec.spiffeIDTemplate');
    } catch (err) {
      throw prefixed('failed to render SPIFFE ID: ', err as RenderError);
    }
    const dnsNames: string[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < spec.dnsNames.length; i++) {
      const name = run('DNS name', 'spec.dnsNameTemplates', i, spec.dnsNames[i]!, data);
      const bad = dnsNameRefused(name);
      if (bad !== undefined) throw new RenderError(`failed to render DNS name: ${bad.message}`, { text: `spec.dnsNameTemplates[${i}] renders an invalid DNS name: ${bad.rule}`, value: JSON.stringify(name) });
      if (!seen.has(name)) {
        seen.add(name);
        dnsNames.push(name);
      }
    }
    for (const name of serviceDnsNames) {
      if (!seen.has(name)) {
        seen.add(name);
        dnsNames.push(name);
      }
    }
    const selectors: Selector[] = [{ type: 'k8s', value: `${POD_UID_SELECTOR_PREFIX}${pod.metadata.uid}` }];
    for (let i = 0; i < spec.workloadSelectors.length; i++) {
      const text = run('workload selector', 'spec.workloadSelectorTemplates', i, spec.workloadSelectors[i]!, data);
      let selector: Selector;
      try {
        selector = sharedSelector(text);
      } catch (err) {
        throw selectorRefused(i, text, errorMessage(err), err instanceof SelectorError ? err.rule : errorMessage(err));
      }
      const bad = selectorValueProblem(selector);
      if (bad !== undefined) throw selectorRefused(i, text, bad, NUL_RULE);
      selectors.push(selector);
    }
    const twice = spec.workloadSelectors.length > 0 ? selectorListedTwice(selectors) : undefined;
    if (twice !== undefined) {
      throw new RenderError(`failed to render workload selector: duplicate selector ${JSON.stringify(twice)}: ${DUPLICATE_SELECTOR_RULE}`, {
        text: `spec.workloadSelectorTemplates render the same selector twice: ${DUPLICATE_SELECTOR_RULE}`,
        value: JSON.stringify(twice),
      });
    }
    const entry: EntrySpec = {
      spiffeId,
      parentId,
      // Copied to their length: an array grown by push keeps room for 17 elements, and
      // the render cache holds two per pod for as long as the pod lives.
      selectors: selectors.slice(),
      x509SvidTtl: spec.x509SvidTtl,
      jwtSvidTtl: spec.jwtSvidTtl,
      federatesWith: spec.federatesWith,
      dnsNames: dnsNames.slice(),
      admin: spec.admin,
      downstream: spec.downstream,
      storeSvid: false,
      hint: spec.hint,
    };
    const bytes = entryBytes(entry);
    if (bytes > MAX_ENTRY_BYTES) throw new RenderError(`the entry would be ${bytes} bytes, ${ENTRY_SIZE_RULE}`, { text: `the entry would be ${ENTRY_SIZE_RULE}`, value: `${bytes} bytes` });
    return { spec: entry };
  } catch (err) {
    if (err instanceof RenderError) return { error: { message: err.message, cause: err.why } };
    // Not a failure of this pod's data: the whole message is its cause.
    const message = errorMessage(err);
    return { error: { message, cause: { text: message } } };
  }
}

/** Resolves bare-path static entry IDs when no trust domain is known (`validate` without one): any valid one checks them. */
const PLACEHOLDER_TRUST_DOMAIN = 'validate.invalid';

/**
 * `spiffe://...` as given, or a bare `/path` resolved against our trust
 * domain; then SPIRE's rules for its role. Without a trust domain (`validate`
 * without one) a bare path is checked against a placeholder, and an ID's
 * trust domain is not compared.
 */
function resolveId(value: string, trustDomain: string | undefined, role: 'member' | 'workload'): string {
  const text = value.startsWith('/') ? `spiffe://${trustDomain ?? PLACEHOLDER_TRUST_DOMAIN}${value}` : value;
  const id = parseSpiffeId(text);
  const tooLong = lengthProblem(id);
  if (tooLong) throw new Error(tooLong);
  const td = trustDomain ?? id.trustDomain;
  const refused = role === 'member' ? memberProblem(id, td) : workloadProblem(id, td);
  if (refused) throw new Error(refused);
  return formatSpiffeId(id);
}

/**
 * Renders a ClusterStaticEntry, reporting every bad field at once. The
 * reconcile always knows the trust domain; `validate` may not, and then the
 * checks that compare with it are left out.
 */
export function renderStaticEntry(obj: ClusterStaticEntry, trustDomain: string | undefined): { spec: EntrySpec } | { errors: FieldProblem[] } {
  const errors: FieldProblem[] = [];
  const s = obj.spec ?? ({} as ClusterStaticEntry['spec']);
  const spiffeId = attempt(errors, 'spec.spiffeID', () => {
    if (!s.spiffeID) throw new Error('is required');
    return resolveId(s.spiffeID, trustDomain, 'workload');
  });
  const parentId = attempt(errors, 'spec.parentID', () => {
    if (!s.parentID) throw new Error('is required');
    return resolveId(s.parentID, trustDomain, 'member');
  });
  if (!s.selectors || s.selectors.length === 0) errors.push({ field: 'spec.selectors', message: 'at least one selector is required' });
  const selectors = (s.selectors ?? []).map((sel, i) =>
    attempt(errors, `spec.selectors[${i}]`, () => {
      const selector = parseSelector(sel);
      const bad = selectorValueProblem(selector);
      if (bad !== undefined) throw new Error(bad);
      return selector;
    }),
  );
  const parsedSelectors = selectors.filter((x): x is Selector => x !== undefined);
  const selectorProblem = duplicateSelector(parsedSelectors) ?? storeSvidProblem(s.storeSVID ?? false, parsedSelectors);
  if (selectorProblem !== undefined) errors.push({ field: 'spec.selectors', message: selectorProblem });
  const federatesWith = (s.federatesWith ?? []).map((td, i) => attempt(errors, `spec.federatesWith[${i}]`, () => parseTrustDomain(td)));
  const x509SvidTtl = attempt(errors, 'spec.x509SVIDTTL', () => ttlSeconds(s.x509SVIDTTL));
  const jwtSvidTtl = attempt(errors, 'spec.jwtSVIDTTL', () => ttlSeconds(s.jwtSVIDTTL));
  (s.dnsNames ?? []).forEach((name, i) => {
    const bad = dnsNameCheck(name);
    if (bad !== undefined) errors.push({ field: `spec.dnsNames[${i}]`, message: bad });
  });
  const hint = s.hint ?? '';
  const badHint = hintProblem(hint);
  if (badHint !== undefined) errors.push({ field: 'spec.hint', message: badHint });
  if (errors.length > 0) return { errors };
  const entry: EntrySpec = {
    spiffeId: spiffeId!,
    parentId: parentId!,
    selectors: parsedSelectors,
    x509SvidTtl: x509SvidTtl!,
    jwtSvidTtl: jwtSvidTtl!,
    federatesWith: [...new Set(federatesWith as string[])],
    dnsNames: [...new Set(s.dnsNames ?? [])],
    admin: s.admin ?? false,
    downstream: s.downstream ?? false,
    storeSvid: s.storeSVID ?? false,
    hint,
  };
  const tooBig = entrySizeProblem(entry);
  return tooBig === undefined ? { spec: entry } : { errors: [{ field: 'spec', message: tooBig }] };
}
