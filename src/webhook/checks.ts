import { type FieldProblem, objectNameProblem } from '../api/index.js';
/**
 * What the webhook and `validate` check per kind. The field checks are the
 * very functions the reconcile uses, so a rejection reads exactly like the
 * failure a reconcile would have reported for the same object later.
 */
import type { ClusterFederatedTrustDomain, ClusterSPIFFEID, ClusterStaticEntry } from '../api/index.js';
import { parseClusterSPIFFEID, renderStaticEntry } from '../entries/index.js';
import { validateFederatedTrustDomain } from '../federation/validate.js';
import type { ManifestProblem, ManifestSet } from '../manifests/index.js';
import type { WebhookKind } from './types.js';

const errorsOf = (r: object): FieldProblem[] => ('errors' in r ? (r.errors as FieldProblem[]) : []);

/**
 * Runs the checks of `kind` on an object (as the API server sent it, or as
 * read from a manifest; either way it passed the CRD's schema). Without
 * `trustDomain` the checks that compare with it are left out, since the
 * answer is unknown. A hand-made review may carry an object without
 * metadata; parseClusterSPIFFEID reads it (for the owner of what it parses),
 * so an empty one stands in rather than a TypeError.
 */
export function checkObject(kind: WebhookKind, object: object, trustDomain: string | undefined, opts: { nameGiven?: boolean } = {}): FieldProblem[] {
  const given = (object as { metadata?: unknown }).metadata;
  const metadata = typeof given === 'object' && given !== null ? given : { name: '' };
  const obj = { ...object, metadata };
  const name = (metadata as { name?: unknown }).name;
  return [...(opts.nameGiven === false ? [] : nameProblems(name)), ...specProblems(kind, obj, trustDomain)];
}

/** What the API server would say of the name: every kind we check is a cluster-scoped custom resource. */
function nameProblems(name: unknown): FieldProblem[] {
  const problem = typeof name === 'string' ? objectNameProblem(name) : undefined;
  return problem ? [{ field: 'metadata.name', message: problem }] : [];
}

function specProblems(kind: WebhookKind, obj: object, trustDomain: string | undefined): FieldProblem[] {
  switch (kind) {
    case 'ClusterSPIFFEID':
      return errorsOf(parseClusterSPIFFEID(obj as ClusterSPIFFEID, trustDomain));
    case 'ClusterStaticEntry':
      return errorsOf(renderStaticEntry(obj as ClusterStaticEntry, trustDomain));
    case 'ClusterFederatedTrustDomain':
      return validateFederatedTrustDomain((obj as ClusterFederatedTrustDomain).spec ?? {}, trustDomain);
  }
}

/**
 * The checks above on every object a manifest set holds, each problem naming
 * the file it was read from, file by file in reading order. `validate` prints
 * them; manifest mode logs them (the reconcile reports the same objects in
 * its plan, where the file is not known).
 */
export function checkManifestObjects(set: ManifestSet, trustDomain: string | undefined): ManifestProblem[] {
  const objects: { kind: WebhookKind; obj: { metadata: { name: string } } }[] = [
    ...set.clusterSPIFFEIDs.map((obj) => ({ kind: 'ClusterSPIFFEID' as const, obj })),
    ...set.clusterStaticEntries.map((obj) => ({ kind: 'ClusterStaticEntry' as const, obj })),
    ...set.clusterFederatedTrustDomains.map((obj) => ({ kind: 'ClusterFederatedTrustDomain' as const, obj })),
  ];
  const byFile = new Map<string, ManifestProblem[]>(set.files.map((f) => [f, []]));
  for (const { kind, obj } of objects) {
    const origin = set.origins.get(obj);
    if (!origin) continue;
    // A name made up from the file (the object had none, as upstream's static files may) is ours, not the user's to fix.
    for (const p of checkObject(kind, obj, trustDomain, { nameGiven: origin.namedAfterFile !== true })) {
      // Without the document index, as the webhook names an object: by kind and name.
      byFile.get(origin.file)?.push({ file: origin.file, document: -1, severity: 'error', kind, name: obj.metadata.name, field: p.field, message: p.message });
    }
  }
  return [...byFile.values()].flat();
}
