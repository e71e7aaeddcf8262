// Original file: proto/spire/api/server/bundle/v1/bundle.proto

import type { WITKey as _spire_api_types_WITKey, WITKey__Output as _spire_api_types_WITKey__Output } from '../../../../../spire/api/types/WITKey.js';

export interface PublishWITAuthorityRequest {
  'wit_authority'?: (_spire_api_types_WITKey | null);
}

export interface PublishWITAuthorityRequest__Output {
  'wit_authority': (_spire_api_types_WITKey__Output | null);
}
