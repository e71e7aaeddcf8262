// Original file: proto/spire/api/types/status.proto


export interface Status {
  'code'?: (number);
  'message'?: (string);
}

export interface Status__Output {
  'code': (number);
  'message': (string);
}
