export * from './model.js';
export { bundleNeedsWrite, parseSpiffeBundle } from './bundle.js';
export { planFederation } from './plan.js';
export { federationOptions, type FederationPassOptions, type FederationPassResult, type FederationSettings, runFederationPass } from './pass.js';
export { describeInvalidTrustDomain, describeTrustDomainConflict, federationPassProblems } from './problems.js';
