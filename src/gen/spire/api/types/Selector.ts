// Original file: proto/spire/api/types/selector.proto


export interface Selector {
  'type'?: (string);
  'value'?: (string);
}

export interface Selector__Output {
  'type': (string);
  'value': (string);
}
