export { loadManifests } from './load.js';
export { formatProblem } from './problem.js';
export { expandEnv } from '../api/index.js';
export { CRDS_ROOT, CRD_FILES, readCRDSchema } from './crd-schema.js';
export type { ManifestProblem, ManifestSet } from './types.js';
