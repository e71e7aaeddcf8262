// Original file: proto/spire/api/server/bundle/v1/bundle.proto

import type { BundleMask as _spire_api_types_BundleMask, BundleMask__Output as _spire_api_types_BundleMask__Output } from '../../../../../spire/api/types/BundleMask.js';

export interface ListFederatedBundlesRequest {
  'output_mask'?: (_spire_api_types_BundleMask | null);
  'page_size'?: (number);
  'page_token'?: (string);
}

export interface ListFederatedBundlesRequest__Output {
  'output_mask': (_spire_api_types_BundleMask__Output | null);
  'page_size': (number);
  'page_token': (string);
}
