import { readFileSync } from 'node:fs';
import { Resolver } from 'node:dns/promises';

/** The name whose canonical name gives the cluster domain: the API server's Service, in namespace default. */
const SERVICE = 'kubernetes.default.svc';

/** What a stub resolver reads of resolv.conf to expand a name: the search list and `options ndots`. */
interface SearchConfig {
  search: string[];
  ndots: number;
}

/**
 * The search list and ndots of a resolv.conf, as glibc and Go read them:
 * the last `search` (or `domain`) line wins, `ndots` defaults to 1 and is
 * capped at 15.
 */
export function parseResolvConf(text: string): SearchConfig {
  let search: string[] = [];
  let ndots = 1;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[#;].*$/, '').trim();
    const [key, ...rest] = line.split(/\s+/);
    if (key === 'search' || key === 'domain') search = rest.filter((d) => d !== '' && d !== '.');
    if (key === 'options') {
      for (const opt of rest) {
        const m = /^ndots:(\d+)$/.exec(opt);
        if (m) ndots = Math.min(15, Number(m[1]));
      }
    }
  }
  return { search, ndots };
}

/**
 * The names a stub resolver tries for `name`, in order: with fewer dots
 * than ndots, the search list first and the name as it is last; otherwise
 * the other way round. A name ending in a dot is tried alone.
 */
export function searchNames(name: string, conf: SearchConfig): string[] {
  if (name.endsWith('.')) return [name];
  const dots = name.split('.').length - 1;
  const searched = conf.search.map((d) => `${name}.${d.replace(/\.$/, '')}.`);
  return dots >= conf.ndots ? [`${name}.`, ...searched] : [...searched, `${name}.`];
}

/** The queries the detection makes: Node's c-ares resolver, or a test's. */
interface DnsQueries {
  resolveCname(name: string): Promise<string[]>;
  resolve4(name: string): Promise<string[]>;
  resolve6(name: string): Promise<string[]>;
}

/** No such name (NXDOMAIN), or a name with no record of that type (NODATA): c-ares's codes, as Node's errors carry them. */
const notThere = (err: unknown) => ['ENOTFOUND', 'ENODATA'].includes((err as { code?: string }).code ?? '');

async function has(query: Promise<string[]>): Promise<boolean> {
  try {
    return (await query).length > 0;
  } catch (err) {
    if (notThere(err)) return false;
    throw err;
  }
}

/**
 * The canonical name of `name` as Go's net.LookupCNAME gives it (what
 * spire-controller-manager calls): the first name of the search list that
 * exists, followed through its CNAME records; a name with address records
 * and no CNAME is its own canonical name. Node's resolveCname alone asks
 * for a CNAME record of the name as given, which no Kubernetes DNS has for
 * `kubernetes.default.svc` (a ClusterIP Service is an A record, found
 * through the pod's search list).
 */
async function canonicalName(name: string, conf: SearchConfig, dns: DnsQueries): Promise<string | undefined> {
  for (const candidate of searchNames(name, conf)) {
    let current = candidate;
    // A CNAME chain, followed a hop at a time, as far as a resolver would (8 hops, as Go's).
    for (let hop = 0; hop < 8; hop++) {
      let targets: string[];
      try {
        targets = await dns.resolveCname(current);
      } catch (err) {
        if (!notThere(err)) throw err;
        targets = [];
      }
      if (targets.length === 0) break;
      current = targets[0]!.endsWith('.') ? targets[0]! : `${targets[0]}.`;
    }
    if (current !== candidate || (await has(dns.resolve4(candidate))) || (await has(dns.resolve6(candidate)))) return current;
  }
  return undefined;
}

interface DetectOptions {
  /** resolv.conf's text; default /etc/resolv.conf (none: no search list). */
  resolvConf?: string;
  /**
   * The queries; default a c-ares resolver on resolv.conf's servers, 1 s a
   * query and 2 tries: where no server answers, the first query's timeout
   * ends the detection (4 s, measured against a server that never answers).
   */
  dns?: DnsQueries;
}

/**
 * The cluster DNS domain, found as upstream finds it: the canonical name of
 * kubernetes.default.svc (canonicalName), less that prefix and the trailing
 * dot. In a pod its resolv.conf searches `<namespace>.svc.<domain>`,
 * `svc.<domain>` and `<domain>`, and the last of them names the Service.
 * Undefined when it cannot be found (outside a cluster, no DNS answering);
 * that is not fatal, and not an error either, as upstream logs and goes on
 * with "".
 */
export async function detectClusterDomain(opts: DetectOptions = {}): Promise<string | undefined> {
  let text = opts.resolvConf;
  if (text === undefined) {
    try {
      text = readFileSync('/etc/resolv.conf', 'utf8');
    } catch {
      text = '';
    }
  }
  const dns = opts.dns ?? new Resolver({ timeout: 1_000, tries: 2 });
  let cname: string | undefined;
  try {
    cname = await canonicalName(SERVICE, parseResolvConf(text), dns);
  } catch {
    // No server answers (a timeout, a refused query): nothing detected.
    return undefined;
  }
  const prefix = `${SERVICE}.`;
  if (!cname?.startsWith(prefix)) return undefined;
  return cname.slice(prefix.length).replace(/\.$/, '') || undefined;
}
