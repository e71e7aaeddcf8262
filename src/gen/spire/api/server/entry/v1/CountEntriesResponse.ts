// Original file: proto/spire/api/server/entry/v1/entry.proto


export interface CountEntriesResponse {
  'count'?: (number);
}

export interface CountEntriesResponse__Output {
  'count': (number);
}
