// Original file: proto/spire/api/server/entry/v1/entry.proto


export interface BatchDeleteEntryRequest {
  'ids'?: (string)[];
}

export interface BatchDeleteEntryRequest__Output {
  'ids': (string)[];
}
