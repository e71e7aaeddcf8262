export * from './model.js';
export { bundleNeedsWrite, parseSpiffeBundle } from './bundle.js';
export { planFederation } from './relationship-plan.js';
export { federationOptions, type FederationPassResult, runFederationPass } from './pass.js';
export { describeInvalidTrustDomain, describeTrustDomainConflict, federationPassProblems } from './problems.js';
