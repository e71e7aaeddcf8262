// Original file: proto/spire/api/types/entry.proto

import type { SPIFFEID as _spire_api_types_SPIFFEID, SPIFFEID__Output as _spire_api_types_SPIFFEID__Output } from '../../../spire/api/types/SPIFFEID.js';
import type { Selector as _spire_api_types_Selector, Selector__Output as _spire_api_types_Selector__Output } from '../../../spire/api/types/Selector.js';
import type { Long } from '@grpc/proto-loader';

export interface _spire_api_types_Entry_AdditionalAttributes {
  'disable_x509_svid_prefetch'?: (boolean);
  'jwt_svid_include_jti'?: (boolean);
}

export interface _spire_api_types_Entry_AdditionalAttributes__Output {
  'disable_x509_svid_prefetch': (boolean);
  'jwt_svid_include_jti': (boolean);
}

export interface Entry {
  'id'?: (string);
  'spiffe_id'?: (_spire_api_types_SPIFFEID | null);
  'parent_id'?: (_spire_api_types_SPIFFEID | null);
  'selectors'?: (_spire_api_types_Selector)[];
  'x509_svid_ttl'?: (number);
  'federates_with'?: (string)[];
  'admin'?: (boolean);
  'downstream'?: (boolean);
  'expires_at'?: (number | string | Long);
  'dns_names'?: (string)[];
  'revision_number'?: (number | string | Long);
  'store_svid'?: (boolean);
  'jwt_svid_ttl'?: (number);
  'hint'?: (string);
  'created_at'?: (number | string | Long);
  'additional_attributes'?: (_spire_api_types_Entry_AdditionalAttributes | null);
  '_additional_attributes'?: "additional_attributes";
}

export interface Entry__Output {
  'id': (string);
  'spiffe_id': (_spire_api_types_SPIFFEID__Output | null);
  'parent_id': (_spire_api_types_SPIFFEID__Output | null);
  'selectors': (_spire_api_types_Selector__Output)[];
  'x509_svid_ttl': (number);
  'federates_with': (string)[];
  'admin': (boolean);
  'downstream': (boolean);
  'expires_at': (string);
  'dns_names': (string)[];
  'revision_number': (string);
  'store_svid': (boolean);
  'jwt_svid_ttl': (number);
  'hint': (string);
  'created_at': (string);
  'additional_attributes'?: (_spire_api_types_Entry_AdditionalAttributes__Output | null);
  '_additional_attributes'?: "additional_attributes";
}
