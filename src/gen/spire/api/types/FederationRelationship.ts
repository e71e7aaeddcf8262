// Original file: proto/spire/api/types/federationrelationship.proto

import type { HTTPSWebProfile as _spire_api_types_HTTPSWebProfile, HTTPSWebProfile__Output as _spire_api_types_HTTPSWebProfile__Output } from '../../../spire/api/types/HTTPSWebProfile.js';
import type { HTTPSSPIFFEProfile as _spire_api_types_HTTPSSPIFFEProfile, HTTPSSPIFFEProfile__Output as _spire_api_types_HTTPSSPIFFEProfile__Output } from '../../../spire/api/types/HTTPSSPIFFEProfile.js';
import type { Bundle as _spire_api_types_Bundle, Bundle__Output as _spire_api_types_Bundle__Output } from '../../../spire/api/types/Bundle.js';

export interface FederationRelationship {
  'trust_domain'?: (string);
  'bundle_endpoint_url'?: (string);
  'https_web'?: (_spire_api_types_HTTPSWebProfile | null);
  'https_spiffe'?: (_spire_api_types_HTTPSSPIFFEProfile | null);
  'trust_domain_bundle'?: (_spire_api_types_Bundle | null);
  'bundle_endpoint_profile'?: "https_web"|"https_spiffe";
}

export interface FederationRelationship__Output {
  'trust_domain': (string);
  'bundle_endpoint_url': (string);
  'https_web'?: (_spire_api_types_HTTPSWebProfile__Output | null);
  'https_spiffe'?: (_spire_api_types_HTTPSSPIFFEProfile__Output | null);
  'trust_domain_bundle': (_spire_api_types_Bundle__Output | null);
  'bundle_endpoint_profile'?: "https_web"|"https_spiffe";
}
