export { SpiffeIdError, SpiffeIdReason } from './errors.js';
export type { SpiffeId } from './id.js';
export { formatSpiffeId, lengthProblem, parseSpiffeId, parseTrustDomain, pathProblem, spiffeIdFromParts, trustDomainNameProblem } from './id.js';
export { dnsNameProblem, dnsNameRefusal } from './dns.js';
export { memberProblem, memberRule, workloadProblem, workloadRule } from './membership.js';
