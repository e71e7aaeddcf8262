// Original file: proto/spire/api/types/bundle.proto

import type { X509Certificate as _spire_api_types_X509Certificate, X509Certificate__Output as _spire_api_types_X509Certificate__Output } from '../../../spire/api/types/X509Certificate.js';
import type { JWTKey as _spire_api_types_JWTKey, JWTKey__Output as _spire_api_types_JWTKey__Output } from '../../../spire/api/types/JWTKey.js';
import type { WITKey as _spire_api_types_WITKey, WITKey__Output as _spire_api_types_WITKey__Output } from '../../../spire/api/types/WITKey.js';
import type { Long } from '@grpc/proto-loader';

export interface Bundle {
  'trust_domain'?: (string);
  'x509_authorities'?: (_spire_api_types_X509Certificate)[];
  'jwt_authorities'?: (_spire_api_types_JWTKey)[];
  'refresh_hint'?: (number | string | Long);
  'sequence_number'?: (number | string | Long);
  'wit_authorities'?: (_spire_api_types_WITKey)[];
}

export interface Bundle__Output {
  'trust_domain': (string);
  'x509_authorities': (_spire_api_types_X509Certificate__Output)[];
  'jwt_authorities': (_spire_api_types_JWTKey__Output)[];
  'refresh_hint': (string);
  'sequence_number': (string);
  'wit_authorities': (_spire_api_types_WITKey__Output)[];
}
