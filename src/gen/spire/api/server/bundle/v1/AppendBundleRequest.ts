// Original file: proto/spire/api/server/bundle/v1/bundle.proto

import type { X509Certificate as _spire_api_types_X509Certificate, X509Certificate__Output as _spire_api_types_X509Certificate__Output } from '../../../../../spire/api/types/X509Certificate.js';
import type { JWTKey as _spire_api_types_JWTKey, JWTKey__Output as _spire_api_types_JWTKey__Output } from '../../../../../spire/api/types/JWTKey.js';
import type { BundleMask as _spire_api_types_BundleMask, BundleMask__Output as _spire_api_types_BundleMask__Output } from '../../../../../spire/api/types/BundleMask.js';
import type { WITKey as _spire_api_types_WITKey, WITKey__Output as _spire_api_types_WITKey__Output } from '../../../../../spire/api/types/WITKey.js';

export interface AppendBundleRequest {
  'x509_authorities'?: (_spire_api_types_X509Certificate)[];
  'jwt_authorities'?: (_spire_api_types_JWTKey)[];
  'output_mask'?: (_spire_api_types_BundleMask | null);
  'wit_authorities'?: (_spire_api_types_WITKey)[];
}

export interface AppendBundleRequest__Output {
  'x509_authorities': (_spire_api_types_X509Certificate__Output)[];
  'jwt_authorities': (_spire_api_types_JWTKey__Output)[];
  'output_mask': (_spire_api_types_BundleMask__Output | null);
  'wit_authorities': (_spire_api_types_WITKey__Output)[];
}
