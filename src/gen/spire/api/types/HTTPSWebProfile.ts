// Original file: proto/spire/api/types/federationrelationship.proto


export interface HTTPSWebProfile {
}

export interface HTTPSWebProfile__Output {
}
