export * from './model.js';
export { changedFields, type ComparedField, ENTRY_FIELDS, FIELD_VIEW_NAMES, type OptionalField } from './compare.js';
export { groupDeclared, type KeyState } from './keys.js';
export { comparePreference, ownerOf } from '../api/index.js';
export {
  classifyEntry,
  defaultEntryIDPrefix,
  type EntryClass,
  type EntryScope,
  hasOwnPrefix,
  type Ownership,
  ownershipFromConfig,
  type Policy,
  SERVER_GENERATED_ID,
} from './ownership.js';
export { agentAttribution, type AgentAttribution } from './agents.js';
export { ClaimedIds } from './claims.js';
export { describeMigration, logMigration, type MigrationNotes, migrationNotes } from './migration.js';
export * from './plan.js';
export { applyPlan, type ApplyFailure, type ApplyResult, type WriteProgress, WRITE_MASK } from './apply.js';
export { indexServices, serviceDnsNames, type ServiceIndex } from './endpoints.js';
export * from './render.js';
export * from './declare.js';
export { computeStatus, computeStatusInSteps, type StatusReport } from './status.js';
export * from './pass.js';
export * from './problems.js';
export { IGNORED_IDS_WARNING, probeSpireServer, SPIRE_CUSTOM_ENTRY_IDS, SpireServerProbe, type ServerTraits } from './unsupported.js';
export { CurrentState } from './current-state.js';
export { newEntryId } from './ids.js';
export { finish, finishInSlices, sliceCounter, type Steps } from './slices.js';
export { BOOTSTRAP_ID_PREFIX, type BootstrapEntries, bootstrapEntries, type BootstrapOptions, bootstrapProblem, controllerSpiffeId, entryCreateCommand } from './bootstrap.js';
