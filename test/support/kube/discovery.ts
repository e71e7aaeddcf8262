/**
 * Discovery documents (/api, /api/v1, /apis, /apis/{g}, /apis/{g}/{v},
 * /version) in the legacy format. client-node's KubernetesObjectApi maps
 * kind to resource from the APIResourceList, taking the first entry with the
 * kind, so each main resource precedes its subresources as on a real server.
 */
import { ALL_VERBS, STATUS_VERBS, type ResourceRegistry, type ResourceType } from './resources.js';

export const SERVER_VERSION = {
  major: '1',
  minor: '34',
  gitVersion: 'v1.34.0-fake',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.24.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

export function apiVersions(serverAddress: string): object {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(registry: ResourceRegistry, group: string): object {
  const versions = registry
    .groupVersions()
    .filter((gv) => gv.group === group)
    .map((gv) => ({ groupVersion: `${group}/${gv.version}`, version: gv.version }));
  return { name: group, versions, preferredVersion: versions[0] };
}

export function apiGroupList(registry: ResourceRegistry): object {
  const groups = [...new Set(registry.groupVersions().map((gv) => gv.group))].filter((g) => g !== '');
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map((g) => apiGroup(registry, g)) };
}

/** One API group, or undefined when the group is not served. */
export function apiGroupDoc(registry: ResourceRegistry, group: string): object | undefined {
  if (!registry.groupVersions().some((gv) => gv.group === group)) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(registry, group) };
}

function resourceEntries(r: ResourceType): object[] {
  const main = {
    name: r.plural,
    singularName: r.singular,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: ALL_VERBS,
    ...(r.shortNames.length > 0 ? { shortNames: r.shortNames } : {}),
  };
  if (!r.statusSubresource) return [main];
  return [main, { name: `${r.plural}/status`, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: STATUS_VERBS }];
}

/** The APIResourceList of a group version, or undefined when it is not served. */
export function apiResourceList(registry: ResourceRegistry, group: string, version: string): object | undefined {
  const resources = registry.inGroupVersion(group, version);
  if (resources.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: resources.flatMap(resourceEntries),
  };
}
