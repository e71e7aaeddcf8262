// Original file: proto/spire/api/server/bundle/v1/bundle.proto

import type { Bundle as _spire_api_types_Bundle, Bundle__Output as _spire_api_types_Bundle__Output } from '../../../../../spire/api/types/Bundle.js';
import type { BundleMask as _spire_api_types_BundleMask, BundleMask__Output as _spire_api_types_BundleMask__Output } from '../../../../../spire/api/types/BundleMask.js';

export interface BatchCreateFederatedBundleRequest {
  'bundle'?: (_spire_api_types_Bundle)[];
  'output_mask'?: (_spire_api_types_BundleMask | null);
}

export interface BatchCreateFederatedBundleRequest__Output {
  'bundle': (_spire_api_types_Bundle__Output)[];
  'output_mask': (_spire_api_types_BundleMask__Output | null);
}
