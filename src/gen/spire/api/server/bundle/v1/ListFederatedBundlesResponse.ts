// Original file: proto/spire/api/server/bundle/v1/bundle.proto

import type { Bundle as _spire_api_types_Bundle, Bundle__Output as _spire_api_types_Bundle__Output } from '../../../../../spire/api/types/Bundle.js';

export interface ListFederatedBundlesResponse {
  'bundles'?: (_spire_api_types_Bundle)[];
  'next_page_token'?: (string);
}

export interface ListFederatedBundlesResponse__Output {
  'bundles': (_spire_api_types_Bundle__Output)[];
  'next_page_token': (string);
}
