// Original file: proto/spire/api/types/selector.proto

import type { Selector as _spire_api_types_Selector, Selector__Output as _spire_api_types_Selector__Output } from '../../../spire/api/types/Selector.js';

// Original file: proto/spire/api/types/selector.proto

export const _spire_api_types_SelectorMatch_MatchBehavior = {
  MATCH_EXACT: 'MATCH_EXACT',
  MATCH_SUBSET: 'MATCH_SUBSET',
  MATCH_SUPERSET: 'MATCH_SUPERSET',
  MATCH_ANY: 'MATCH_ANY',
} as const;

export type _spire_api_types_SelectorMatch_MatchBehavior =
  | 'MATCH_EXACT'
  | 0
  | 'MATCH_SUBSET'
  | 1
  | 'MATCH_SUPERSET'
  | 2
  | 'MATCH_ANY'
  | 3

export type _spire_api_types_SelectorMatch_MatchBehavior__Output = typeof _spire_api_types_SelectorMatch_MatchBehavior[keyof typeof _spire_api_types_SelectorMatch_MatchBehavior]

export interface SelectorMatch {
  'selectors'?: (_spire_api_types_Selector)[];
  'match'?: (_spire_api_types_SelectorMatch_MatchBehavior);
}

export interface SelectorMatch__Output {
  'selectors': (_spire_api_types_Selector__Output)[];
  'match': (_spire_api_types_SelectorMatch_MatchBehavior__Output);
}
