import type { FieldProblem } from './problems.js';
import type { LabelSelector } from './kube.js';
import { DNS_SUBDOMAIN_EXPLAINED, isDnsSubdomain, MAX_DNS_SUBDOMAIN } from './names.js';

export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

export class LabelSelectorError extends Error {
  constructor(readonly problems: FieldProblem[]) {
    super(problems.map((p) => `${p.field}: ${p.message}`).join('; '));
    this.name = 'LabelSelectorError';
  }
}

const OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

// apimachinery's validation (k8s.io/apimachinery/pkg/util/validation, v0.36), with its wording, so a
// refusal here reads as the Kubernetes one. Expected messages in test/api/labels.test.ts were produced by
// metav1.LabelSelectorAsSelector itself.
const NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const NAME = new RegExp(`^${NAME_FMT}$`);
const NAME_EXPLAINED = `must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${NAME_FMT}')`;
const VALUE_FMT = `(${NAME_FMT})?`;
const VALUE = new RegExp(`^${VALUE_FMT}$`);
const VALUE_EXPLAINED = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '${VALUE_FMT}')`;
const MAX_NAME = 63;
const MAX_VALUE = 63;

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const invalid = (value: string, reasons: string[]) => `Invalid value: ${JSON.stringify(value)}: ${reasons.join('; ')}`;

/** The reasons a label key is invalid (Kubernetes' qualified name: an optional DNS subdomain prefix, `/`, a name), or none. */
function labelKeyProblem(key: string): string | undefined {
  const parts = key.split('/');
  let name: string;
  const reasons: string[] = [];
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) reasons.push('prefix part must be non-empty');
    else {
      if (bytes(prefix) > MAX_DNS_SUBDOMAIN) reasons.push(`prefix part must be no more than ${MAX_DNS_SUBDOMAIN} bytes`);
      if (!isDnsSubdomain(prefix)) reasons.push(`prefix part ${DNS_SUBDOMAIN_EXPLAINED}`);
    }
  } else {
    return invalid(key, [`a valid label key ${NAME_EXPLAINED} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`]);
  }
  if (name.length === 0) reasons.push('name part must be non-empty');
  else if (bytes(name) > MAX_NAME) reasons.push(`name part must be no more than ${MAX_NAME} bytes`);
  if (!NAME.test(name)) reasons.push(`name part ${NAME_EXPLAINED}`);
  return reasons.length > 0 ? invalid(key, reasons) : undefined;
}

/** The reason a label value is invalid (at most 63 bytes of [-A-Za-z0-9_.], alphanumeric at both ends, or empty), or none. */
function labelValueProblem(value: string): string | undefined {
  const reasons: string[] = [];
  if (bytes(value) > MAX_VALUE) reasons.push(`must be no more than ${MAX_VALUE} bytes`);
  if (!VALUE.test(value)) reasons.push(VALUE_EXPLAINED);
  return reasons.length > 0 ? invalid(value, reasons) : undefined;
}

/** Problems with a label map (matchLabels, or a config's label set), fields `["key"]`. */
export function labelSetProblems(labels: Record<string, unknown>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [key, value] of Object.entries(labels)) {
    const field = `[${JSON.stringify(key)}]`;
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) problems.push({ field, message: `key: ${keyProblem}` });
    if (typeof value !== 'string') problems.push({ field, message: 'value: must be a string' });
    else {
      const valueProblem = labelValueProblem(value);
      if (valueProblem) problems.push({ field, message: valueProblem });
    }
  }
  return problems;
}

/**
 * Every reason metav1.LabelSelectorAsSelector would refuse the selector
 * (apimachinery stops at the first requirement in error; we report them all):
 * keys are qualified names, values label values, operators one of four,
 * In/NotIn need values and Exists/DoesNotExist take none.
 */
function labelSelectorProblems(selector: LabelSelector): FieldProblem[] {
  const problems = labelSetProblems(selector.matchLabels ?? {}).map((p) => ({ ...p, field: `matchLabels${p.field}` }));
  for (const [i, req] of (selector.matchExpressions ?? []).entries()) {
    const where = `matchExpressions[${i}]`;
    if (!OPERATORS.has(req.operator)) {
      problems.push({ field: `${where}.operator`, message: `${JSON.stringify(req.operator ?? '')} is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)` });
      continue;
    }
    const keyProblem = labelKeyProblem(req.key ?? '');
    if (keyProblem) problems.push({ field: `${where}.key`, message: keyProblem });
    const values = req.values ?? [];
    if ((req.operator === 'In' || req.operator === 'NotIn') && values.length === 0) {
      problems.push({ field: `${where}.values`, message: "for 'in', 'notin' operators, values set can't be empty" });
    }
    if ((req.operator === 'Exists' || req.operator === 'DoesNotExist') && values.length > 0) {
      problems.push({ field: `${where}.values`, message: 'values set must be empty for exists and does not exist' });
    }
    values.forEach((v, j) => {
      const valueProblem = labelValueProblem(v);
      if (valueProblem) problems.push({ field: `${where}.values[${j}]`, message: valueProblem });
    });
  }
  return problems;
}

/**
 * Compiles a metav1.LabelSelector. Throws LabelSelectorError, naming every
 * problem, for a selector Kubernetes would refuse: such an object matches
 * nothing rather than something unintended (a NotIn with an invalid value
 * would otherwise match every pod). An absent selector matches everything;
 * an empty one too.
 */
export function compileLabelSelector(selector: LabelSelector | undefined | null): LabelMatcher {
  if (!selector) return () => true;
  const problems = labelSelectorProblems(selector);
  if (problems.length > 0) throw new LabelSelectorError(problems);
  const tests: LabelMatcher[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    tests.push((labels) => labels?.[key] === value);
  }
  for (const req of selector.matchExpressions ?? []) {
    const key = req.key;
    const set = new Set(req.values ?? []);
    switch (req.operator) {
      case 'In':
        tests.push((labels) => labels?.[key] !== undefined && set.has(labels[key] as string));
        break;
      case 'NotIn':
        tests.push((labels) => labels?.[key] === undefined || !set.has(labels[key] as string));
        break;
      case 'Exists':
        tests.push((labels) => labels?.[key] !== undefined);
        break;
      case 'DoesNotExist':
        tests.push((labels) => labels?.[key] === undefined);
        break;
    }
  }
  return (labels) => tests.every((t) => t(labels));
}

/** A label selector as kubectl writes one (`app=web,tier in (a,b),!legacy`); an empty one selects everything. */
export function describeLabelSelector(selector: LabelSelector | undefined | null): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {})) parts.push(`${key}=${value}`);
  for (const req of selector?.matchExpressions ?? []) {
    const values = (req.values ?? []).join(',');
    if (req.operator === 'In') parts.push(`${req.key} in (${values})`);
    else if (req.operator === 'NotIn') parts.push(`${req.key} notin (${values})`);
    else if (req.operator === 'Exists') parts.push(req.key);
    else if (req.operator === 'DoesNotExist') parts.push(`!${req.key}`);
    else parts.push(`${req.key} ${req.operator} (${values})`);
  }
  return parts.length === 0 ? '(empty: selects everything)' : parts.join(',');
}

/** Labels as `key=value,...`, or `(no labels)`. */
export function describeLabels(labels: Record<string, string> | undefined): string {
  const parts = Object.entries(labels ?? {}).map(([k, v]) => `${k}=${v}`);
  return parts.length === 0 ? '(no labels)' : parts.join(',');
}
