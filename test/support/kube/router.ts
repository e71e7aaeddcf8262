/**
 * Maps a request path onto what it names: a discovery document or a
 * resource (collection, object, subresource), with its namespace. Paths have
 * the real server's shapes, including the deprecated `/watch/` prefix.
 */
import type { ResourceRegistry, ResourceType } from './resources.js';

export type Target =
  | { type: 'version' }
  | { type: 'health' }
  | { type: 'api' }
  | { type: 'apis' }
  | { type: 'group'; group: string }
  | { type: 'groupVersion'; group: string; version: string }
  | {
      type: 'resource';
      resource: ResourceType;
      /** Set for namespaced paths; undefined for cluster-scoped types and for all-namespaces collections. */
      namespace?: string;
      name?: string;
      subresource?: 'status';
      /** `/watch/` in the path: the deprecated way of asking for a watch. */
      watchPrefix: boolean;
    }
  | { type: 'notFound' };

export function route(registry: ResourceRegistry, path: string): Target {
  let segs: string[];
  try {
    segs = path.split('/').filter((s) => s !== '').map(decodeURIComponent);
  } catch {
    return { type: 'notFound' };
  }
  const [root, ...rest] = segs;
  switch (root) {
    case 'version':
      return rest.length === 0 ? { type: 'version' } : { type: 'notFound' };
    case 'healthz':
    case 'readyz':
    case 'livez':
      return { type: 'health' };
    case 'api':
      if (rest.length === 0) return { type: 'api' };
      return resourcePath(registry, '', rest[0]!, rest.slice(1));
    case 'apis':
      if (rest.length === 0) return { type: 'apis' };
      if (rest.length === 1) return { type: 'group', group: rest[0]! };
      return resourcePath(registry, rest[0]!, rest[1]!, rest.slice(2));
    default:
      return { type: 'notFound' };
  }
}

function resourcePath(registry: ResourceRegistry, group: string, version: string, rest: string[]): Target {
  if (rest.length === 0) return { type: 'groupVersion', group, version };
  let watchPrefix = false;
  if (rest[0] === 'watch') {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  let resource: ResourceType | undefined;
  let namespace: string | undefined;
  let tail: string[];
  const nested = rest[0] === 'namespaces' && rest.length >= 3 ? registry.byPath(group, version, rest[2]!) : undefined;
  if (nested?.namespaced) {
    resource = nested;
    namespace = rest[1];
    tail = rest.slice(3);
  } else {
    resource = registry.byPath(group, version, rest[0]!);
    tail = rest.slice(1);
    // A namespaced object is only addressed through its namespace.
    if (resource?.namespaced && tail.length > 0) return { type: 'notFound' };
  }
  if (!resource || tail.length > 2) return { type: 'notFound' };
  const [name, sub] = tail;
  if (sub !== undefined && !(sub === 'status' && resource.statusSubresource)) return { type: 'notFound' };
  return {
    type: 'resource',
    resource,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(sub === 'status' ? { subresource: 'status' as const } : {}),
    watchPrefix,
  };
}
