import { SpiffeIdError, SpiffeIdReason } from './errors.js';

const SCHEME = 'spiffe://';

export interface SpiffeId {
  readonly trustDomain: string;
  /** "" or a validated path starting with "/". */
  readonly path: string;
}

function isTrustDomainChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) || // a-z
    (c >= 0x30 && c <= 0x39) || // 0-9
    c === 0x2e || // .
    c === 0x2d || // -
    c === 0x5f // _
  );
}

function isPathSegmentChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) || // A-Z
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2e ||
    c === 0x2d ||
    c === 0x5f
  );
}

/** Returns the reason a trust domain name is invalid, or undefined. */
export function trustDomainNameProblem(name: string): string | undefined {
  if (name === '') return SpiffeIdReason.missingTrustDomain;
  for (let i = 0; i < name.length; i++) {
    if (!isTrustDomainChar(name.charCodeAt(i))) return SpiffeIdReason.badTrustDomainChar;
  }
  return undefined;
}

/**
 * Returns the reason a path is invalid, or undefined. The checks run segment
 * by segment in go-spiffe's order, so the first problem reported matches a
 * real server's for the same input.
 */
export function pathProblem(path: string): string | undefined {
  if (path === '') return undefined;
  if (path[0] !== '/') return SpiffeIdReason.noLeadingSlash;
  let segmentStart = 0;
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c === 0x2f) {
      const segment = path.slice(segmentStart, i);
      if (segment === '/') return SpiffeIdReason.emptySegment;
      if (segment === '/.' || segment === '/..') return SpiffeIdReason.dotSegment;
      segmentStart = i;
      continue;
    }
    if (!isPathSegmentChar(c)) return SpiffeIdReason.badPathSegmentChar;
  }
  const last = path.slice(segmentStart);
  if (last === '/') return SpiffeIdReason.trailingSlash;
  if (last === '/.' || last === '/..') return SpiffeIdReason.dotSegment;
  return undefined;
}

/** Parses `spiffe://<td><path>`; throws SpiffeIdError with go-spiffe's reason. */
export function parseSpiffeId(id: string): SpiffeId {
  if (id === '') throw new SpiffeIdError(SpiffeIdReason.empty);
  if (!id.startsWith(SCHEME)) throw new SpiffeIdError(SpiffeIdReason.wrongScheme);
  const rest = id.slice(SCHEME.length);
  const slash = rest.indexOf('/');
  const trustDomain = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash);
  const tdProblem = trustDomainNameProblem(trustDomain);
  if (tdProblem) throw new SpiffeIdError(tdProblem);
  const pProblem = pathProblem(path);
  if (pProblem) throw new SpiffeIdError(pProblem);
  return { trustDomain, path };
}

/**
 * Parses a trust domain given either as a bare name or as a SPIFFE ID (any
 * string containing ":/"), which reduces to its trust domain, as SPIRE does
 * for federatesWith and federation relationships.
 */
export function parseTrustDomain(input: string): string {
  if (input === '') throw new SpiffeIdError(SpiffeIdReason.missingTrustDomain);
  if (input.includes(':/')) return parseSpiffeId(input).trustDomain;
  const problem = trustDomainNameProblem(input);
  if (problem) throw new SpiffeIdError(problem);
  return input;
}

const MAX_TRUST_DOMAIN_BYTES = 255;
const MAX_SPIFFE_ID_BYTES = 2048;

/**
 * The SPIFFE ID specification's length limits, which SPIRE itself does not
 * enforce. Checked on IDs we render, so an ID other SPIFFE implementations
 * would refuse never reaches SPIRE. Returns the reason, or undefined.
 */
export function lengthProblem(id: SpiffeId): string | undefined {
  if (Buffer.byteLength(id.trustDomain) > MAX_TRUST_DOMAIN_BYTES) return SpiffeIdReason.trustDomainTooLong;
  if (Buffer.byteLength(formatSpiffeId(id)) > MAX_SPIFFE_ID_BYTES) return SpiffeIdReason.idTooLong;
  return undefined;
}

/** Builds an ID from parts, validating both; throws SpiffeIdError. */
export function spiffeIdFromParts(trustDomain: string, path: string): SpiffeId {
  const td = parseTrustDomain(trustDomain);
  const problem = pathProblem(path);
  if (problem) throw new SpiffeIdError(problem);
  return { trustDomain: td, path };
}

export function formatSpiffeId(id: SpiffeId): string {
  return `${SCHEME}${id.trustDomain}${id.path}`;
}
