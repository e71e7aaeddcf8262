/**
 * The verbs on a resource path: get, list (selectors, pagination,
 * resourceVersion semantics), watch set-up, create, update, patch, delete and
 * deletecollection, each answering what the real API server answers,
 * including its error Status for bad input.
 */
import { parse as parseYaml } from 'yaml';
import {
  badRequest,
  expired,
  invalid,
  KubeApiError,
  type KubeStatus,
  methodNotAllowed,
  notFound,
  tooLargeResourceVersion,
  unsupportedMediaType,
} from './errors.js';
import { applyMerge, jsonPatch, mergePatch, PATCH_TYPES, strategicMergePatch } from './patch.js';
import { fieldLabelsOf, type ResourceType } from './resources.js';
import { parseFieldSelector, parseLabelSelector, type FieldMatcher } from './selectors.js';
import { keyOf, type Store } from './store.js';
import { isPlainObject, type KubeObject } from './types.js';
import { waitForResourceVersion, type WatchParams } from './watch.js';

export interface ResourceRequest {
  method: string;
  resource: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: 'status';
  watchPrefix: boolean;
  query: URLSearchParams;
  /** Without parameters such as `; charset=utf-8`. */
  contentType: string;
  body: string;
  userAgent: string;
}

export type Reply = { status: number; body: unknown } | { watch: WatchParams };

/** How long a request for a future resourceVersion waits before 504, as the API server's cache does. */
const TOO_LARGE_WAIT_MS = 3000;

export class ResourceHandlers {
  // Lists being paged through, by resource, resourceVersion and namespace: a controller pages
  // through several resources at once, and one slot would be rebuilt on every page of each.
  private readonly pagedSnapshots = new Map<string, KubeObject[]>();

  private rememberPaged(key: string, items: KubeObject[]): void {
    this.pagedSnapshots.delete(key);
    this.pagedSnapshots.set(key, items);
    if (this.pagedSnapshots.size > 16) this.pagedSnapshots.delete(this.pagedSnapshots.keys().next().value!);
  }

  constructor(private readonly store: Store) {}

  async handle(req: ResourceRequest): Promise<Reply> {
    const { method, name } = req;
    const isWatch = req.watchPrefix || req.query.get('watch') === 'true' || req.query.get('watch') === '1';
    switch (method) {
      case 'GET':
        if (isWatch) return this.watch(req);
        if (name === undefined) return this.list(req);
        return { status: 200, body: this.get(req) };
      case 'POST':
        if (name !== undefined) throw methodNotAllowed(method);
        return this.create(req);
      case 'PUT':
        if (name === undefined) throw methodNotAllowed(method);
        return this.update(req);
      case 'PATCH':
        if (name === undefined) throw methodNotAllowed(method);
        return this.patch(req);
      case 'DELETE':
        if (req.subresource) throw methodNotAllowed(method);
        if (name === undefined) return this.deleteCollection(req);
        return this.delete(req);
      default:
        throw methodNotAllowed(method);
    }
  }

  private get(req: ResourceRequest): KubeObject {
    const obj = this.store.get(req.resource, req.namespace, req.name!);
    if (!obj) throw notFound(req.resource, req.name!);
    return obj;
  }

  private selectors(req: ResourceRequest): { labels?: ReturnType<typeof parseLabelSelector>; fields?: FieldMatcher } {
    const labels = parseLabelSelector(req.query.get('labelSelector') ?? undefined);
    let fields = parseFieldSelector(req.query.get('fieldSelector') ?? undefined, fieldLabelsOf(req.resource));
    if (req.name !== undefined) {
      // A watch on an object's own path is a watch with metadata.name=<name>.
      const byName: FieldMatcher = (o) => o.metadata.name === req.name;
      const other = fields;
      fields = other ? (o) => byName(o) && other(o) : byName;
    }
    return { ...(labels ? { labels } : {}), ...(fields ? { fields } : {}) };
  }

  private parseResourceVersion(raw: string | null): number | undefined {
    if (raw === null || raw === '') return undefined;
    if (!/^\d+$/.test(raw)) throw badRequest(`invalid resource version: ${raw}`);
    return Number(raw);
  }

  /** A resourceVersion the store has not reached: wait a little, then 504 as the API server does. */
  private async awaitResourceVersion(rv: number | undefined): Promise<void> {
    if (rv === undefined || rv <= this.store.resourceVersion) return;
    if (!(await waitForResourceVersion(this.store, rv, TOO_LARGE_WAIT_MS))) {
      throw tooLargeResourceVersion(rv, this.store.resourceVersion);
    }
  }

  private async watch(req: ResourceRequest): Promise<Reply> {
    const q = req.query;
    const rvRaw = q.get('resourceVersion') ?? '';
    const rv = this.parseResourceVersion(rvRaw);
    const sendInitialEvents = q.get('sendInitialEvents') === 'true';
    if (sendInitialEvents && q.get('resourceVersionMatch') !== 'NotOlderThan') {
      throw invalid('ListOptions', 'meta.k8s.io', '', [
        {
          reason: 'FieldValueForbidden',
          field: 'sendInitialEvents',
          message: 'Forbidden: sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan',
        },
      ]);
    }
    // A plain watch from a resourceVersion the server has not reached is accepted and waits for
    // it (the API server's cacher: clients "can wait for events without unnecessary blocking");
    // one that asks for the initial events must have them as of that version: after the same wait
    // as a list, the stream carries one ERROR event with the 504 Status, and ends.
    let error: KubeStatus | undefined;
    if (sendInitialEvents) {
      try {
        await this.awaitResourceVersion(rv);
      } catch (err) {
        if (!(err instanceof KubeApiError)) throw err;
        error = err.status;
      }
    }
    const timeout = q.get('timeoutSeconds');
    return {
      watch: {
        ...(error ? { error } : {}),
        resource: req.resource,
        ...(req.namespace !== undefined ? { namespace: req.namespace } : {}),
        ...this.selectors(req),
        resourceVersion: rvRaw,
        allowBookmarks: q.get('allowWatchBookmarks') === 'true',
        sendInitialEvents,
        ...(timeout !== null && /^\d+$/.test(timeout) ? { timeoutSeconds: Number(timeout) } : {}),
      },
    };
  }

  private async list(req: ResourceRequest): Promise<Reply> {
    const q = req.query;
    const r = req.resource;
    const { labels, fields } = this.selectors(req);
    const limitRaw = q.get('limit');
    if (limitRaw !== null && !/^\d+$/.test(limitRaw)) throw badRequest(`invalid limit: ${limitRaw}`);
    const limit = limitRaw === null ? 0 : Number(limitRaw);
    const rvRaw = q.get('resourceVersion');
    const rv = this.parseResourceVersion(rvRaw);
    const match = q.get('resourceVersionMatch') ?? '';
    const token = q.get('continue') ?? '';
    if (match && !['Exact', 'NotOlderThan'].includes(match)) {
      throw invalid('ListOptions', 'meta.k8s.io', '', [
        { reason: 'FieldValueNotSupported', field: 'resourceVersionMatch', message: `Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"` },
      ]);
    }
    if (match && rv === undefined) {
      throw invalid('ListOptions', 'meta.k8s.io', '', [
        { reason: 'FieldValueForbidden', field: 'resourceVersionMatch', message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided' },
      ]);
    }
    if (token && rv !== undefined && rv !== 0) {
      throw invalid('ListOptions', 'meta.k8s.io', '', [
        { reason: 'FieldValueForbidden', field: 'resourceVersion', message: 'Forbidden: specifying resource version is not allowed when using continue' },
      ]);
    }

    let atRV: number;
    let items: KubeObject[];
    let after: string | undefined;
    if (token) {
      const decoded = decodeContinue(token);
      atRV = decoded.rv;
      after = decoded.start;
      if (atRV < this.store.oldestResourceVersion) {
        throw expired(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
        );
      }
      // A snapshot at a resourceVersion never changes: keep the last one, so that paging
      // through N objects costs O(N) in all, as from the real API server's cache, not O(N^2).
      const cacheKey = `${r.plural}\u0000${atRV}\u0000${req.namespace ?? ''}`;
      items = this.pagedSnapshots.get(cacheKey) ?? this.store.snapshot(r, atRV, req.namespace);
      this.rememberPaged(cacheKey, items);
    } else if (match === 'Exact') {
      await this.awaitResourceVersion(rv);
      atRV = rv!;
      items = this.store.snapshot(r, atRV, req.namespace);
    } else {
      // Unset, "0" and NotOlderThan are all served from the latest state.
      await this.awaitResourceVersion(rv);
      atRV = this.store.resourceVersion;
      items = this.store.list(r, req.namespace);
      // The later pages read the list as of this resourceVersion: that is this one.
      if (limit > 0) this.rememberPaged(`${r.plural}\u0000${atRV}\u0000${req.namespace ?? ''}`, items);
    }
    let start = 0;
    if (after !== undefined) {
      // Items are in key order: find the first one after the continue key by binary search.
      let hi = items.length;
      while (start < hi) {
        const mid = (start + hi) >>> 1;
        if (keyOf(items[mid]!) > after) hi = mid;
        else start = mid + 1;
      }
    }
    // One page at a time, without copying or filtering the rest of the list (O(page), not O(N), per request).
    const matches = (o: KubeObject) => (!labels || labels(o.metadata.labels)) && (!fields || fields(o));
    const page: KubeObject[] = [];
    let i = start;
    for (; i < items.length && (limit === 0 || page.length < limit); i++) if (matches(items[i]!)) page.push(items[i]!);
    let more = false;
    for (let j = i; limit > 0 && j < items.length && !more; j++) more = matches(items[j]!);
    const metadata: Record<string, unknown> = { resourceVersion: String(atRV) };
    if (more) {
      metadata.continue = encodeContinue(atRV, keyOf(page[page.length - 1]!));
      // The API server only counts what remains when no selector filters the list.
      if (!labels && !fields) metadata.remainingItemCount = items.length - i;
    }
    return {
      status: 200,
      body: { kind: r.listKind, apiVersion: r.apiVersion, metadata, items: page.map((o) => listItem(r, o)) },
    };
  }

  private checkBodyTarget(req: ResourceRequest, body: Record<string, unknown>): void {
    const r = req.resource;
    if (body.apiVersion !== undefined && body.apiVersion !== r.apiVersion) {
      throw badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${r.apiVersion})`);
    }
    if (body.kind !== undefined && body.kind !== r.kind) {
      throw badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${r.kind})`);
    }
    const meta = isPlainObject(body.metadata) ? body.metadata : {};
    body.metadata = meta;
    if (r.namespaced) {
      if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== req.namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = req.namespace;
    }
    if (req.name !== undefined && meta.name !== undefined && meta.name !== req.name) {
      throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${req.name})`);
    }
    if (req.name !== undefined) meta.name = req.name;
  }

  private manager(req: ResourceRequest): string {
    // As the API server: the fieldManager parameter, else the user agent up to its first '/'.
    return req.query.get('fieldManager') || req.userAgent.split('/')[0] || 'unknown';
  }

  private dryRun(req: ResourceRequest): boolean {
    return req.query.get('dryRun') === 'All';
  }

  private create(req: ResourceRequest): Reply {
    if (req.namespace === undefined && req.resource.namespaced) throw methodNotAllowed(req.method);
    const body = parseObjectBody(req);
    this.checkBodyTarget(req, body);
    const created = this.store.create(req.resource, body, {
      manager: this.manager(req),
      resetStatus: true,
      dryRun: this.dryRun(req),
    });
    return { status: 201, body: created };
  }

  private update(req: ResourceRequest): Reply {
    const body = parseObjectBody(req);
    this.checkBodyTarget(req, body);
    const updated = this.store.update(req.resource, body, {
      manager: this.manager(req),
      dryRun: this.dryRun(req),
      ...(req.subresource ? { subresource: req.subresource } : {}),
    });
    return { status: 200, body: updated };
  }

  private patch(req: ResourceRequest): Reply {
    const r = req.resource;
    const allowed = r.custom
      ? [PATCH_TYPES.json, PATCH_TYPES.merge, PATCH_TYPES.apply]
      : [PATCH_TYPES.json, PATCH_TYPES.merge, PATCH_TYPES.strategic, PATCH_TYPES.apply];
    const type = req.contentType;
    if (!(allowed as string[]).includes(type)) throw unsupportedMediaType(allowed);
    const isApply = type === PATCH_TYPES.apply;
    const manager = req.query.get('fieldManager');
    if (isApply && !manager) {
      throw invalid('PatchOptions', 'meta.k8s.io', '', [
        { reason: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' },
      ]);
    }
    if (!isApply && req.query.get('force') !== null) {
      throw invalid('PatchOptions', 'meta.k8s.io', '', [
        { reason: 'FieldValueForbidden', field: 'force', message: 'Forbidden: may not be specified for non-apply patch' },
      ]);
    }
    const patch = parsePatchBody(req.body, isApply);
    const name = req.name!;
    const existing = this.store.get(r, req.namespace, name);
    const ctx = {
      manager: this.manager(req),
      operation: isApply ? ('Apply' as const) : ('Update' as const),
      dryRun: this.dryRun(req),
      ...(req.subresource ? { subresource: req.subresource } : {}),
    };

    let candidate: unknown;
    if (isApply) {
      if (!isPlainObject(patch)) throw badRequest('apply patch must be an object');
      if (patch.apiVersion !== r.apiVersion) {
        throw badRequest(`Incorrect version specified in apply patch. Specified patch version: ${String(patch.apiVersion)}, expected: ${r.apiVersion}`);
      }
      if (patch.kind !== r.kind) {
        throw badRequest(`Incorrect kind specified in apply patch. Specified patch kind: ${String(patch.kind)}, expected: ${r.kind}`);
      }
      this.checkBodyTarget(req, patch);
      if (!existing) {
        // Apply creates; through /status there is nothing to apply to.
        if (req.subresource) throw notFound(r, name);
        return { status: 201, body: this.store.create(r, patch, { ...ctx, resetStatus: true }) };
      }
      candidate = applyMerge(existing, patch);
    } else {
      if (!existing) throw notFound(r, name);
      if (type === PATCH_TYPES.json) candidate = jsonPatch(existing, patch);
      else if (type === PATCH_TYPES.merge) candidate = mergePatch(existing, patch);
      else candidate = strategicMergePatch(existing, patch);
    }
    if (!isPlainObject(candidate) || !isPlainObject(candidate.metadata)) throw badRequest('the patched object has no metadata');
    if (candidate.metadata.name !== name) {
      throw badRequest(`the name of the object (${String(candidate.metadata.name)}) does not match the name on the URL (${name})`);
    }
    if (r.namespaced) candidate.metadata.namespace = req.namespace;
    return { status: 200, body: this.store.update(r, candidate, ctx) };
  }

  private delete(req: ResourceRequest): Reply {
    const opts = parseDeleteOptions(req.body);
    const grace = gracePeriod(req, opts);
    const deleted = this.store.delete(req.resource, req.namespace, req.name!, {
      dryRun: this.dryRun(req) || opts.dryRun,
      ...(opts.preconditions ? { preconditions: opts.preconditions } : {}),
      ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}),
    });
    return { status: 200, body: deleted };
  }

  private deleteCollection(req: ResourceRequest): Reply {
    const r = req.resource;
    if (r.namespaced && req.namespace === undefined) throw methodNotAllowed(req.method);
    const { labels, fields } = this.selectors(req);
    const opts = parseDeleteOptions(req.body);
    const dryRun = this.dryRun(req) || opts.dryRun;
    const grace = gracePeriod(req, opts);
    const victims = this.store
      .list(r, req.namespace)
      .filter((o) => (!labels || labels(o.metadata.labels)) && (!fields || fields(o)));
    const deleted = victims.map((o) => this.store.delete(r, o.metadata.namespace, o.metadata.name!, { dryRun, ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}) }));
    return {
      status: 200,
      body: {
        kind: r.listKind,
        apiVersion: r.apiVersion,
        metadata: { resourceVersion: String(this.store.resourceVersion) },
        items: deleted.map((o) => listItem(r, o)),
      },
    };
  }
}

/**
 * Items of a built-in list carry no kind/apiVersion on the wire (the list
 * has them); custom resources' items keep theirs. Consumers that read
 * `kind` from a listed object break on a real cluster too.
 */
function listItem(r: ResourceType, obj: KubeObject): unknown {
  if (r.custom) return obj;
  const { kind: _k, apiVersion: _a, ...rest } = obj;
  return rest;
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (isPlainObject(parsed) && typeof parsed.rv === 'number' && typeof parsed.start === 'string') {
      return { rv: parsed.rv, start: parsed.start };
    }
  } catch {
    // fall through to the error below
  }
  throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

function parseObjectBody(req: ResourceRequest): Record<string, unknown> {
  const type = req.contentType || 'application/json';
  let parsed: unknown;
  try {
    if (type === 'application/json') parsed = JSON.parse(req.body);
    else if (type === 'application/yaml') parsed = parseYaml(req.body);
    else throw unsupportedMediaType(['application/json', 'application/yaml']);
  } catch (e) {
    if (e instanceof KubeApiError) throw e;
    throw badRequest(`the body of the request could not be decoded: ${(e as Error).message}`);
  }
  if (!isPlainObject(parsed)) throw badRequest('the body of the request must be an object');
  return parsed;
}

function parsePatchBody(body: string, yaml: boolean): unknown {
  try {
    return yaml ? parseYaml(body) : JSON.parse(body);
  } catch (e) {
    throw badRequest(`error decoding patch: ${(e as Error).message}`);
  }
}

/** DeleteOptions' gracePeriodSeconds, from the body or the query (as kubectl sends it); unset if neither has it. */
function gracePeriod(req: ResourceRequest, opts: { gracePeriodSeconds?: number }): number | undefined {
  const query = req.query.get('gracePeriodSeconds');
  const grace = opts.gracePeriodSeconds ?? (query !== null && query !== '' ? Number(query) : undefined);
  if (grace !== undefined && !Number.isInteger(grace)) throw badRequest(`gracePeriodSeconds must be an integer: ${String(opts.gracePeriodSeconds ?? query)}`);
  return grace;
}

function parseDeleteOptions(body: string): { dryRun: boolean; preconditions?: { uid?: string; resourceVersion?: string }; gracePeriodSeconds?: number } {
  if (!body.trim()) return { dryRun: false };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (e) {
    throw badRequest(`the body of the request could not be decoded: ${(e as Error).message}`);
  }
  if (!isPlainObject(parsed)) return { dryRun: false };
  const pre = isPlainObject(parsed.preconditions) ? parsed.preconditions : undefined;
  return {
    dryRun: Array.isArray(parsed.dryRun) && parsed.dryRun.includes('All'),
    ...(typeof parsed.gracePeriodSeconds === 'number' ? { gracePeriodSeconds: parsed.gracePeriodSeconds } : {}),
    ...(pre
      ? {
          preconditions: {
            ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
            ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}),
          },
        }
      : {}),
  };
}
