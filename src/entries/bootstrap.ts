import type { Entry } from '../spire/index.js';
import { pathProblem } from '../spiffe/index.js';

/**
 * The entries that let the controller run outside the SPIRE server's pod
 * (the standalone layout, docs/standalone.md): it calls the SPIRE server's
 * TCP port with an X.509 SVID from the SPIRE agent, and the server admits it
 * as an admin only if an entry with `admin: true` issued that SVID. The
 * controller cannot create that entry itself (it has no access before it
 * exists), so `spire-reconciler bootstrap` creates it once, over the admin
 * socket, or prints the `spire-server entry create` commands that do.
 *
 * Two entries, with fixed IDs, so that running the command again finds them:
 * - `agents`: a node alias every SPIRE agent of this cluster holds (k8s_psat
 *   attested it for `clusterName`, and carries the node labels asked for);
 *   the controller's pods may run on any such node;
 * - `controller`: the controller's identity, issued by those agents to a pod
 *   in `namespace` running as `serviceAccount`, with `admin: true`.
 * The controller never changes or deletes entries with these IDs, whatever
 * its entryScope (ownership.ts).
 */
export const BOOTSTRAP_ID_PREFIX = 'spire-reconciler-bootstrap.';

export interface BootstrapOptions {
  trustDomain: string;
  clusterName: string;
  /** Where the controller's pods run: only those who may create pods there can claim its identity. */
  namespace: string;
  serviceAccount: string;
  /** Node labels an agent's node must carry (k8s_psat's agent_node_label selectors): the nodes the controller's pods may run on. */
  nodeLabels?: Record<string, string>;
  /** The controller SVID's lifetime; 0 leaves the server's default_x509_svid_ttl. */
  x509SvidTtlSeconds?: number;
}

interface BootstrapEntries {
  agents: Entry & { id: string };
  controller: Entry & { id: string };
}

/** The controller's own SPIFFE ID in the standalone layout: the X.509 SVID it prefers when the agent gives several. */
export function controllerSpiffeId(trustDomain: string, clusterName: string): string {
  return `spiffe://${trustDomain}/spire-reconciler/${clusterName}`;
}

/** Why these options make no valid entries, or undefined. */
export function bootstrapProblem(o: BootstrapOptions): string | undefined {
  const segment = o.clusterName.includes('/') ? 'it holds a "/"' : pathProblem(`/spire-reconciler/${o.clusterName}`);
  if (segment) return `clusterName "${o.clusterName}" cannot be a SPIFFE ID path segment: ${segment}`;
  for (const [what, value] of [
    ['namespace', o.namespace],
    ['service account', o.serviceAccount],
  ] as const) {
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(value)) return `${what} "${value}" is not a Kubernetes name`;
  }
  for (const [k, v] of Object.entries(o.nodeLabels ?? {})) {
    if (k.includes(':') || v.includes(':')) return `node label ${k}=${v}: a selector value cannot hold ":" in a label key or value`;
  }
  if ((o.x509SvidTtlSeconds ?? 0) < 0 || !Number.isInteger(o.x509SvidTtlSeconds ?? 0)) return `x509 SVID TTL must be whole seconds, 0 or more, got ${o.x509SvidTtlSeconds}`;
  return undefined;
}

/** The two entries, as the SPIRE API takes them. */
export function bootstrapEntries(o: BootstrapOptions): BootstrapEntries {
  const spiffeId = (path: string) => ({ trust_domain: o.trustDomain, path });
  const idPart = `${BOOTSTRAP_ID_PREFIX}${o.clusterName}`;
  const aliasPath = `/spire-reconciler/${o.clusterName}/agents`;
  const nodeLabels = Object.entries(o.nodeLabels ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return {
    agents: {
      id: `${idPart}.agents`,
      spiffe_id: spiffeId(aliasPath),
      parent_id: spiffeId('/spire/server'),
      selectors: [{ type: 'k8s_psat', value: `cluster:${o.clusterName}` }, ...nodeLabels.map(([k, v]) => ({ type: 'k8s_psat', value: `agent_node_label:${k}:${v}` }))],
    },
    controller: {
      id: `${idPart}.controller`,
      spiffe_id: spiffeId(new URL(controllerSpiffeId(o.trustDomain, o.clusterName)).pathname),
      parent_id: spiffeId(aliasPath),
      selectors: [
        { type: 'k8s', value: `ns:${o.namespace}` },
        { type: 'k8s', value: `sa:${o.serviceAccount}` },
      ],
      admin: true,
      x509_svid_ttl: o.x509SvidTtlSeconds ?? 0,
    },
  };
}

/** The `spire-server entry create` command that makes an entry, for a shell in the SPIRE server's container. */
export function entryCreateCommand(e: Entry & { id: string }): string {
  const id = (x: { trust_domain?: string; path?: string } | null | undefined) => `spiffe://${x?.trust_domain}${x?.path}`;
  const node = e.parent_id?.path === '/spire/server';
  const args = [
    'spire-server entry create',
    `-entryID ${e.id}`,
    node ? '-node' : `-parentID ${id(e.parent_id)}`,
    `-spiffeID ${id(e.spiffe_id)}`,
    ...(e.selectors ?? []).map((s) => `-selector ${s.type}:${s.value}`),
    ...(e.admin ? ['-admin'] : []),
    ...(e.x509_svid_ttl ? [`-x509SVIDTTL ${e.x509_svid_ttl}`] : []),
  ];
  return args.join(' ');
}
