import type { Failure, Node, Pod } from '../api/index.js';
import type { EntrySpec } from './model.js';
import { renderParentId, type RenderSettings } from './render.js';

/** A render as the cache keeps it: the entry and its key, or why it failed. */
type CachedRender = { spec: EntrySpec; key: string } | { error: Failure };

/** The inputs a render is valid for, and its result (spec and key, or an error) in the same object: one object per pod entry. */
export interface CacheSlot {
  pod: Pod;
  node: Node;
  dns: string;
  spec: EntrySpec | undefined;
  key: string;
  error: Failure | undefined;
}

/**
 * Rendered pod entries kept between passes. A result is reused while the pod
 * and node objects are the same objects (informers replace an object when it
 * changes), the ClusterSPIFFEID spec is unchanged and the pod's service DNS
 * names are the same; so a pod event re-renders that pod only, and a
 * ClusterSPIFFEID change re-renders only its own pods. Entries no pass used
 * are dropped at the end of each pass.
 */
export class RenderCache {
  // Spec key -> pod UID -> slot: two lookups instead of building a long key per pod per pass.
  private entries = new Map<string, Map<string, CacheSlot>>();
  private used = new Map<string, Map<string, CacheSlot>>();
  private readonly parents = new WeakMap<Node, ReturnType<typeof renderParentId>>();
  hits = 0;
  misses = 0;

  parentId(node: Node, settings: RenderSettings): ReturnType<typeof renderParentId> {
    let r = this.parents.get(node);
    if (!r) this.parents.set(node, (r = renderParentId(node, settings)));
    return r;
  }

  podEntry(specKey: string, uid: string, pod: Pod, node: Node, dns: readonly string[], render: () => CachedRender): CacheSlot {
    const dnsKey = dns.length === 0 ? '' : dns.join(',');
    let used = this.used.get(specKey);
    if (!used) this.used.set(specKey, (used = new Map()));
    // A pod pass since the last full pass may have rendered it already (and a full pass after it should reuse that).
    const hit = used.get(uid) ?? this.entries.get(specKey)?.get(uid);
    if (hit && hit.pod === pod && hit.node === node && hit.dns === dnsKey) {
      this.hits++;
      used.set(uid, hit);
      return hit;
    }
    this.misses++;
    const result = render();
    const slot: CacheSlot = 'error' in result ? { pod, node, dns: dnsKey, spec: undefined, key: '', error: result.error } : { pod, node, dns: dnsKey, spec: result.spec, key: result.key, error: undefined };
    used.set(uid, slot);
    return slot;
  }

  /** Ends a pass: keeps exactly what this pass used. */
  sweep(): void {
    this.entries = this.used;
    this.used = new Map();
  }
}
