/**
 * Rejection reasons, worded exactly as go-spiffe words them: a real SPIRE
 * server returns these strings inside its own messages, and our validation
 * must read the same so an operator sees one vocabulary.
 */
export const SpiffeIdReason = {
  empty: 'cannot be empty',
  wrongScheme: 'scheme is missing or invalid',
  missingTrustDomain: 'trust domain is missing',
  badTrustDomainChar: 'trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores',
  noLeadingSlash: 'path must have a leading slash',
  emptySegment: 'path cannot contain empty segments',
  dotSegment: 'path cannot contain dot segments',
  trailingSlash: 'path cannot have a trailing slash',
  badPathSegmentChar: 'path segment characters are limited to letters, numbers, dots, dashes, and underscores',
  // The SPIFFE ID specification's limits; go-spiffe and SPIRE do not enforce them, so only our checks use these.
  trustDomainTooLong: 'trust domain is longer than 255 bytes',
  idTooLong: 'SPIFFE ID is longer than 2048 bytes',
} as const;

export class SpiffeIdError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'SpiffeIdError';
  }
}
