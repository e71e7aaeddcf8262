export * from './kube.js';
export * from './crds.js';
export { durationToSeconds, parseGoDuration } from './duration.js';
export { compileLabelSelector, describeLabels, describeLabelSelector, type LabelMatcher, LabelSelectorError, labelSetProblems, type SelectorProblem } from './labels.js';
export * from './config.js';
export { expandEnv } from './env.js';
export { globLikeWarning, IgnoredNamespaces, IgnoreNamespacesError } from './namespaces.js';
export * from './cache-scope.js';
