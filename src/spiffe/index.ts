export { SpiffeIdError, SpiffeIdReason } from './errors.js';
export type { SpiffeId } from './id.js';
export {
  formatSpiffeId,
  parseSpiffeId,
  parseTrustDomain,
  pathProblem,
  spiffeIdFromParts,
  trustDomainNameProblem,
} from './id.js';
