// Original file: proto/spire/api/types/status.proto


// Original file: proto/spire/api/types/status.proto

export const _spire_api_types_PermissionDeniedDetails_Reason = {
  UNKNOWN: 'UNKNOWN',
  AGENT_EXPIRED: 'AGENT_EXPIRED',
  AGENT_NOT_ATTESTED: 'AGENT_NOT_ATTESTED',
  AGENT_NOT_ACTIVE: 'AGENT_NOT_ACTIVE',
  AGENT_BANNED: 'AGENT_BANNED',
  AGENT_MUST_REATTEST: 'AGENT_MUST_REATTEST',
} as const;

export type _spire_api_types_PermissionDeniedDetails_Reason =
  | 'UNKNOWN'
  | 0
  | 'AGENT_EXPIRED'
  | 1
  | 'AGENT_NOT_ATTESTED'
  | 2
  | 'AGENT_NOT_ACTIVE'
  | 3
  | 'AGENT_BANNED'
  | 4
  | 'AGENT_MUST_REATTEST'
  | 5

export type _spire_api_types_PermissionDeniedDetails_Reason__Output = typeof _spire_api_types_PermissionDeniedDetails_Reason[keyof typeof _spire_api_types_PermissionDeniedDetails_Reason]

export interface PermissionDeniedDetails {
  'reason'?: (_spire_api_types_PermissionDeniedDetails_Reason);
}

export interface PermissionDeniedDetails__Output {
  'reason': (_spire_api_types_PermissionDeniedDetails_Reason__Output);
}
