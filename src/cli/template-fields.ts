import type { ClusterSPIFFEID } from '../api/index.js';
import { nearestName } from '../api/suggest.js';
import type { ManifestProblem, ManifestSet } from '../manifests/index.js';
import { TEMPLATE_NAMES, TemplateParseError, templateLimitProblem, unknownFields } from '../template/index.js';

/**
 * `CHAIN: HOLDER has no field NAME (did you mean ...?)` for each field name
 * the template reads that its data cannot have (see template/fields.ts).
 * Nothing for a template that does not parse or is over the limits: the
 * shared checks report those already.
 */
export function templateFieldMessages(source: string, name: string): string[] {
  if (templateLimitProblem(source) !== undefined) return [];
  try {
    return unknownFields(source, name).map((u) => {
      // One edit at least, not two: Go field names are short, and "Foo" is not a typo of "OS".
      const near = nearestName(u.name, u.fields, 1) ?? nearestName(u.name, u.methods, 1);
      return `${u.chain}: ${u.holder} has no field ${u.name}${near ? ` (did you mean ${near}?)` : ''}`;
    });
  } catch (err) {
    if (err instanceof TemplateParseError) return [];
    throw err;
  }
}

/** A ClusterSPIFFEID's templates, each with its field path and the name upstream parses it under. */
export function templatesOf(obj: ClusterSPIFFEID): { field: string; source: string; name: string }[] {
  const spec = obj.spec ?? {};
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
  return [
    ...(typeof spec.spiffeIDTemplate === 'string' ? [{ field: 'spec.spiffeIDTemplate', source: spec.spiffeIDTemplate, name: TEMPLATE_NAMES.spiffeID }] : []),
    ...strings(spec.dnsNameTemplates).map((source, i) => ({ field: `spec.dnsNameTemplates[${i}]`, source, name: TEMPLATE_NAMES.dnsName })),
    ...strings(spec.workloadSelectorTemplates).map((source, i) => ({ field: `spec.workloadSelectorTemplates[${i}]`, source, name: TEMPLATE_NAMES.workloadSelector })),
  ];
}

/**
 * validate's check, beyond the webhook's: field names the ClusterSPIFFEIDs'
 * templates read that no pod or node can have, each naming the file, the
 * object and the template's field. The webhook admits these, as upstream's
 * does (Go finds them only when it renders); every render of them fails.
 */
export function templateFieldProblems(set: ManifestSet): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const obj of set.clusterSPIFFEIDs) {
    const origin = set.origins.get(obj);
    if (!origin) continue;
    for (const t of templatesOf(obj)) {
      for (const message of templateFieldMessages(t.source, t.name)) {
        problems.push({ file: origin.file, document: -1, severity: 'error', kind: 'ClusterSPIFFEID', name: obj.metadata.name, field: t.field, message });
      }
    }
  }
  return problems;
}
