/**
 * The cluster domain, detected as spire-controller-manager detects it (Go's
 * net.LookupCNAME of kubernetes.default.svc), through Node's real resolver
 * and a real DNS server on a UDP socket answering as a cluster's DNS does.
 */
import { Resolver } from 'node:dns/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { detectClusterDomain, parseResolvConf, searchNames } from '../../src/manager/cluster-domain.js';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';

/** A pod's resolv.conf, as the kubelet writes it for a pod in namespace spire-server of a cluster with this domain. */
const podResolvConf = (domain: string) => `search spire-server.svc.${domain} svc.${domain} ${domain}\nnameserver 10.96.0.10\noptions ndots:5\n`;

describe('the cluster domain is detected as upstream detects it', () => {
  let dns: DnsServer | undefined;
  afterEach(async () => {
    await dns?.close();
    dns = undefined;
  });

  const resolverFor = (server: DnsServer) => {
    const r = new Resolver({ timeout: 1_000, tries: 1 });
    r.setServers([server.address]);
    return r;
  };

  it("in a pod: the Service's A record, found through the search list, names the domain (a CNAME query alone finds nothing)", async () => {
    dns = await startDnsServer({ 'kubernetes.default.svc.cluster.local.': { a: ['10.96.0.1'] } });
    const resolver = resolverFor(dns);
    expect(await detectClusterDomain({ resolvConf: podResolvConf('cluster.local'), dns: resolver })).toBe('cluster.local');
    // The search list in a pod's order, up to the name that exists; the name as given is never asked.
    expect([...new Set(dns.asked)]).toEqual(['kubernetes.default.svc.spire-server.svc.cluster.local.', 'kubernetes.default.svc.svc.cluster.local.', 'kubernetes.default.svc.cluster.local.']);
    // A CNAME query for the name as given has no answer: the Service has no CNAME, and the name is not fully qualified.
    await expect(resolver.resolveCname('kubernetes.default.svc')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('a cluster domain of its own, and one reached through a CNAME', async () => {
    dns = await startDnsServer({
      'kubernetes.default.svc.corp.example.': { a: ['10.0.0.1'] },
      'kubernetes.default.svc.alias.example.': { cname: 'kubernetes.default.svc.k8s.example.' },
      'kubernetes.default.svc.k8s.example.': { a: ['10.0.0.2'] },
    });
    expect(await detectClusterDomain({ resolvConf: podResolvConf('corp.example'), dns: resolverFor(dns) })).toBe('corp.example');
    expect(await detectClusterDomain({ resolvConf: podResolvConf('alias.example'), dns: resolverFor(dns) })).toBe('k8s.example');
  });

  it('nothing outside a cluster: no search list naming it, a CNAME elsewhere, or no DNS server answering', async () => {
    dns = await startDnsServer({ 'kubernetes.default.svc.cluster.local.': { a: ['10.96.0.1'] }, 'kubernetes.default.svc.elsewhere.example.': { cname: 'api.elsewhere.example.' }, 'api.elsewhere.example.': { a: ['10.0.0.3'] } });
    expect(await detectClusterDomain({ resolvConf: 'search corp.example\nnameserver 10.0.0.53\n', dns: resolverFor(dns) })).toBeUndefined();
    expect(await detectClusterDomain({ resolvConf: podResolvConf('elsewhere.example'), dns: resolverFor(dns) })).toBeUndefined();
    const silent = new Resolver({ timeout: 200, tries: 1 });
    // A port nothing answers on (the DNS server closed).
    const gone = dns.address;
    await dns.close();
    dns = undefined;
    silent.setServers([gone]);
    expect(await detectClusterDomain({ resolvConf: podResolvConf('cluster.local'), dns: silent })).toBeUndefined();
  });

  it('reads the search list and ndots as a stub resolver does, and tries names in its order', () => {
    expect(parseResolvConf('domain a.example\nsearch b.example c.example # comment\noptions ndots:5 timeout:2\n')).toEqual({ search: ['b.example', 'c.example'], ndots: 5 });
    expect(parseResolvConf('nameserver 10.0.0.1\noptions ndots:99\n')).toEqual({ search: [], ndots: 15 });
    expect(searchNames('kubernetes.default.svc', { search: ['a.example'], ndots: 5 })).toEqual(['kubernetes.default.svc.a.example.', 'kubernetes.default.svc.']);
    expect(searchNames('kubernetes.default.svc', { search: ['a.example'], ndots: 1 })).toEqual(['kubernetes.default.svc.', 'kubernetes.default.svc.a.example.']);
    expect(searchNames('kubernetes.default.svc.', { search: ['a.example'], ndots: 5 })).toEqual(['kubernetes.default.svc.']);
  });
});
