import { resolveCname } from 'node:dns/promises';

/**
 * The cluster DNS domain, found as upstream finds it: the CNAME of
 * kubernetes.default.svc, less that prefix and the trailing dot. Undefined
 * when it cannot be found (e.g. outside a cluster); that is not fatal.
 */
export async function detectClusterDomain(lookup: (name: string) => Promise<string[]> = resolveCname): Promise<string | undefined> {
  const prefix = 'kubernetes.default.svc.';
  try {
    for (const name of await lookup('kubernetes.default.svc')) {
      const fqdn = name.endsWith('.') ? name : `${name}.`;
      if (fqdn.startsWith(prefix)) return fqdn.slice(prefix.length).replace(/\.$/, '') || undefined;
    }
  } catch {
    // No CNAME (search-path resolution only): upstream logs and goes on with "".
  }
  return undefined;
}
