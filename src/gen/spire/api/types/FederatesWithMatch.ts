// Original file: proto/spire/api/types/federateswith.proto


// Original file: proto/spire/api/types/federateswith.proto

export const _spire_api_types_FederatesWithMatch_MatchBehavior = {
  MATCH_EXACT: 'MATCH_EXACT',
  MATCH_SUBSET: 'MATCH_SUBSET',
  MATCH_SUPERSET: 'MATCH_SUPERSET',
  MATCH_ANY: 'MATCH_ANY',
} as const;

export type _spire_api_types_FederatesWithMatch_MatchBehavior =
  | 'MATCH_EXACT'
  | 0
  | 'MATCH_SUBSET'
  | 1
  | 'MATCH_SUPERSET'
  | 2
  | 'MATCH_ANY'
  | 3

export type _spire_api_types_FederatesWithMatch_MatchBehavior__Output = typeof _spire_api_types_FederatesWithMatch_MatchBehavior[keyof typeof _spire_api_types_FederatesWithMatch_MatchBehavior]

export interface FederatesWithMatch {
  'trust_domains'?: (string)[];
  'match'?: (_spire_api_types_FederatesWithMatch_MatchBehavior);
}

export interface FederatesWithMatch__Output {
  'trust_domains': (string)[];
  'match': (_spire_api_types_FederatesWithMatch_MatchBehavior__Output);
}
