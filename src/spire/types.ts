/**
 * Friendly names for the generated wire types. `X` is what we send (fields
 * optional), `XOut` is what the loader hands back (defaults filled in).
 */
export type { Entry, Entry__Output as EntryOut } from '../gen/spire/api/types/Entry.js';
export type { EntryMask, EntryMask__Output as EntryMaskOut } from '../gen/spire/api/types/EntryMask.js';
export type { Selector, Selector__Output as SelectorOut } from '../gen/spire/api/types/Selector.js';
export type { SPIFFEID } from '../gen/spire/api/types/SPIFFEID.js';
export type {
  FederationRelationship,
  FederationRelationship__Output as FederationRelationshipOut,
} from '../gen/spire/api/types/FederationRelationship.js';
export type {
  FederationRelationshipMask,
  FederationRelationshipMask__Output as FederationRelationshipMaskOut,
} from '../gen/spire/api/types/FederationRelationshipMask.js';
export type { Bundle, Bundle__Output as BundleOut } from '../gen/spire/api/types/Bundle.js';
export type { BundleMask, BundleMask__Output as BundleMaskOut } from '../gen/spire/api/types/BundleMask.js';
export type {
  _spire_api_server_entry_v1_ListEntriesRequest_Filter as EntryFilter,
  _spire_api_server_entry_v1_ListEntriesRequest_Filter__Output as EntryFilterOut,
} from '../gen/spire/api/server/entry/v1/ListEntriesRequest.js';
