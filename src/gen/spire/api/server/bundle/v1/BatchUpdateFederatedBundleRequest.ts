// Original file: proto/spire/api/server/bundle/v1/bundle.proto

import type { Bundle as _spire_api_types_Bundle, Bundle__Output as _spire_api_types_Bundle__Output } from '../../../../../spire/api/types/Bundle.js';
import type { BundleMask as _spire_api_types_BundleMask, BundleMask__Output as _spire_api_types_BundleMask__Output } from '../../../../../spire/api/types/BundleMask.js';

export interface BatchUpdateFederatedBundleRequest {
  'bundle'?: (_spire_api_types_Bundle)[];
  'input_mask'?: (_spire_api_types_BundleMask | null);
  'output_mask'?: (_spire_api_types_BundleMask | null);
}

export interface BatchUpdateFederatedBundleRequest__Output {
  'bundle': (_spire_api_types_Bundle__Output)[];
  'input_mask': (_spire_api_types_BundleMask__Output | null);
  'output_mask': (_spire_api_types_BundleMask__Output | null);
}
