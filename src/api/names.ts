/**
 * Kubernetes' rule for the names of cluster-scoped custom resources
 * (apimachinery's NameIsDNSSubdomain, k8s.io/apimachinery/pkg/util/validation
 * v0.36), in its words, so `validate` and the webhook refuse exactly the
 * names the API server refuses, and say it as `kubectl apply` would.
 */
const DNS_SUBDOMAIN_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const DNS_SUBDOMAIN = new RegExp(`^${DNS_SUBDOMAIN_FMT}$`);
export const DNS_SUBDOMAIN_EXPLAINED = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${DNS_SUBDOMAIN_FMT}')`;
export const MAX_DNS_SUBDOMAIN = 253;

export function isDnsSubdomain(value: string): boolean {
  return DNS_SUBDOMAIN.test(value);
}

/**
 * Why the API server would refuse `name` as a cluster-scoped object's
 * `metadata.name`, or undefined. An empty name is left to the API server:
 * it never sends one to a webhook (generateName is resolved first), and a
 * manifest without a name is named after its file, as upstream reads it.
 */
export function objectNameProblem(name: string): string | undefined {
  if (name === '') return undefined;
  const reasons: string[] = [];
  // Go measures in bytes, and its MaxLenError says so (as for label values).
  if (Buffer.byteLength(name, 'utf8') > MAX_DNS_SUBDOMAIN) reasons.push(`must be no more than ${MAX_DNS_SUBDOMAIN} bytes`);
  if (!isDnsSubdomain(name)) reasons.push(DNS_SUBDOMAIN_EXPLAINED);
  return reasons.length > 0 ? `Invalid value: ${JSON.stringify(name)}: ${reasons.join('; ')}` : undefined;
}

// Control characters and separators: printed as they are, they would break a one-line message or hide in it.
const UNPRINTABLE = /[\p{Cc}\p{Z}]/u;

/** A name as a message shows it: quoted when it holds a character that cannot be shown as it is (a NUL, a line break). */
export function printableName(name: string): string {
  return UNPRINTABLE.test(name) ? JSON.stringify(name) : name;
}
