// Original file: proto/spire/api/server/bundle/v1/bundle.proto

import type { BundleMask as _spire_api_types_BundleMask, BundleMask__Output as _spire_api_types_BundleMask__Output } from '../../../../../spire/api/types/BundleMask.js';

export interface GetBundleRequest {
  'output_mask'?: (_spire_api_types_BundleMask | null);
}

export interface GetBundleRequest__Output {
  'output_mask': (_spire_api_types_BundleMask__Output | null);
}
