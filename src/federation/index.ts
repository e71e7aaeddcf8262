export * from './model.js';
export { bundleNeedsWrite, parseSpiffeBundle, sameBundle } from './bundle.js';
export { parseFederatedTrustDomain } from './parse.js';
export { type FieldProblem, validateFederatedTrustDomain, type FederatedTrustDomainSpec } from './validate.js';
export { type FederationPlan, type FederationPlanInput, planFederation, type RelationshipField } from './plan.js';
export { applyFederation, type FederationApplyResult, federationStatus, type FederationStatus, fromSpire } from './apply.js';
export { federationOptions, type FederationPassResult, runFederationPass } from './pass.js';
export { describeInvalidTrustDomain, describeTrustDomainConflict, federationPassProblems } from './problems.js';
