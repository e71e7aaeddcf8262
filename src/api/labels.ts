import type { LabelSelector } from './kube.js';

export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

const OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/**
 * Compiles a metav1.LabelSelector. Throws with the reason apimachinery gives
 * for an invalid one. An absent selector matches everything; an empty one too.
 */
export function compileLabelSelector(selector: LabelSelector | undefined | null): LabelMatcher {
  if (!selector) return () => true;
  const tests: LabelMatcher[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    tests.push((labels) => labels?.[key] === value);
  }
  for (const [i, req] of (selector.matchExpressions ?? []).entries()) {
    const where = `matchExpressions[${i}]`;
    if (!req.key) throw new Error(`${where}.key: must be non-empty`);
    if (!OPERATORS.has(req.operator)) {
      throw new Error(`${where}.operator: "${req.operator}" is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)`);
    }
    const values = req.values ?? [];
    const key = req.key;
    switch (req.operator) {
      case 'In':
      case 'NotIn': {
        if (values.length === 0) throw new Error(`${where}.values: must be specified when operator is ${req.operator}`);
        const set = new Set(values);
        tests.push(
          req.operator === 'In'
            ? (labels) => labels?.[key] !== undefined && set.has(labels[key] as string)
            : (labels) => labels?.[key] === undefined || !set.has(labels[key] as string),
        );
        break;
      }
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) throw new Error(`${where}.values: may not be specified when operator is ${req.operator}`);
        tests.push(req.operator === 'Exists' ? (labels) => labels?.[key] !== undefined : (labels) => labels?.[key] === undefined);
        break;
    }
  }
  return (labels) => tests.every((t) => t(labels));
}
