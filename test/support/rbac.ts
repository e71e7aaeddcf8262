/**
 * Whether deploy/'s RBAC allows the requests a process actually sent (the fake
 * API server records each): every request turned into the attributes the API
 * server's RBAC authorizer checks (verb, group, resource, subresource,
 * namespace, name) and matched against the ClusterRole and Role rules.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { repoRoot } from './cli.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

export interface Attributes {
  verb: string;
  group: string;
  /** `pods`, or `clusterspiffeids/status` for a subresource. */
  resource: string;
  namespace?: string;
  name?: string;
}

/** The attributes of a request, or undefined for discovery (/api, /apis/<group>/<version>), which every client may read. */
export function attributesOf(method: string, path: string, query: string): Attributes | undefined {
  const parts = path.split('/').filter(Boolean);
  let rest: string[];
  let group: string;
  if (parts[0] === 'api') {
    group = '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis') {
    group = parts[1] ?? '';
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  if (rest.length === 0) return undefined;
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, sub] = rest as [string, string | undefined, string | undefined];
  const watching = /(^|&)watch=(true|1)(&|$)/.test(query);
  const verb = (
    {
      GET: name === undefined ? (watching ? 'watch' : 'list') : 'get',
      POST: 'create',
      PUT: 'update',
      PATCH: 'patch',
      DELETE: name === undefined ? 'deletecollection' : 'delete',
    } as Record<string, string>
  )[method];
  if (verb === undefined) throw new Error(`no RBAC verb for ${method} ${path}`);
  return { verb, group, resource: sub ? `${resource}/${sub}` : resource, ...(namespace !== undefined ? { namespace } : {}), ...(name !== undefined ? { name } : {}) };
}

function rulesOf(file: string): { rules: Rule[]; namespace?: string } {
  const obj = parseYaml(readFileSync(join(repoRoot, 'deploy', file), 'utf8')) as { kind: string; metadata: { namespace?: string }; rules: Rule[] };
  return { rules: obj.rules, ...(obj.kind === 'Role' ? { namespace: obj.metadata.namespace } : {}) };
}

const allows = (r: Rule, a: Attributes) =>
  r.apiGroups.includes(a.group) && r.resources.includes(a.resource) && r.verbs.includes(a.verb) && (!r.resourceNames || (a.name !== undefined && r.resourceNames.includes(a.name)));

/** The requests deploy/clusterrole.yaml and deploy/role.yaml do not allow, as `VERB group/resource ns/name`. */
export function deniedByDeployRbac(requests: readonly { method: string; path: string; query: string }[]): string[] {
  const roles = [rulesOf('clusterrole.yaml'), rulesOf('role.yaml')];
  const denied = new Set<string>();
  for (const req of requests) {
    const a = attributesOf(req.method, req.path, req.query);
    if (!a) continue;
    const ok = roles.some((role) => (role.namespace === undefined || role.namespace === a.namespace) && role.rules.some((r) => allows(r, a)));
    if (!ok) denied.add(`${a.verb} ${a.group || 'core'}/${a.resource} ${a.namespace ?? ''}/${a.name ?? ''}`);
  }
  return [...denied].sort();
}

/** Every distinct verb and resource the requests used, to show what a test exercised. */
export function usedVerbs(requests: readonly { method: string; path: string; query: string }[]): string[] {
  const used = new Set<string>();
  for (const req of requests) {
    const a = attributesOf(req.method, req.path, req.query);
    if (a) used.add(`${a.verb} ${a.group || 'core'}/${a.resource}`);
  }
  return [...used].sort();
}
