export { SpiffeIdError, SpiffeIdReason } from './errors.js';
export type { SpiffeId } from './id.js';
export {
  formatSpiffeId,
  lengthProblem,
  MAX_SPIFFE_ID_BYTES,
  MAX_TRUST_DOMAIN_BYTES,
  parseSpiffeId,
  parseTrustDomain,
  pathProblem,
  spiffeIdFromParts,
  trustDomainNameProblem,
} from './id.js';
export { dnsNameProblem, dnsNameRefusal, type DnsNameRefusal, IDNA_ERROR } from './dns.js';
export { isReservedPath, memberProblem, memberRule, workloadProblem, workloadRule } from './membership.js';
