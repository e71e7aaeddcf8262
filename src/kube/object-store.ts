import type { KubernetesObject } from '@kubernetes/client-node';

/** The key of an object in a store: namespace and name. */
function objectKey(namespace: string | undefined, name: string | undefined): string {
  return `${namespace ?? ''}/${name ?? ''}`;
}

function keyOf(obj: KubernetesObject): string {
  return objectKey(obj.metadata?.namespace, obj.metadata?.name);
}

/** The change a store reported: what kind, the object, and the object it replaced (for an update). */
export interface StoreChange<T> {
  kind: 'add' | 'update' | 'delete';
  obj: T;
  previous: T | undefined;
}

/**
 * An informer's cache: the objects by namespace and name, as the last list
 * and the watch events since have left them. Each write says what changed,
 * with the object it replaced, so a caller never needs its own copy.
 */
export class ObjectStore<T extends KubernetesObject> {
  private readonly objects: Map<string, T>;

  constructor(items: Iterable<T> = []) {
    this.objects = new Map();
    for (const item of items) this.objects.set(keyOf(item), item);
  }

  get size(): number {
    return this.objects.size;
  }

  get(name: string, namespace?: string): T | undefined {
    return this.objects.get(objectKey(namespace, name));
  }

  list(): T[] {
    return [...this.objects.values()];
  }

  /**
   * Stores an added or modified object. An object with the resourceVersion
   * of the one it replaces is the same version: no change.
   */
  put(obj: T): StoreChange<T> | undefined {
    const key = keyOf(obj);
    const previous = this.objects.get(key);
    this.objects.set(key, obj);
    if (!previous) return { kind: 'add', obj, previous: undefined };
    if (sameVersion(previous, obj)) return undefined;
    return { kind: 'update', obj, previous };
  }

  /** Removes a deleted object; no change when it was not held. */
  remove(obj: T): StoreChange<T> | undefined {
    const key = keyOf(obj);
    const previous = this.objects.get(key);
    if (!previous) return undefined;
    this.objects.delete(key);
    return { kind: 'delete', obj, previous };
  }

  /**
   * What a list that replaces `this` by `next` reports: each listed object
   * as added to the new store, with the one held here (when there was one),
   * but not one held here at the same resourceVersion. The objects the list
   * no longer has are not reported: the caller hears of the relist as a
   * whole (ResilientInformer's onResync).
   */
  listedChanges(next: ObjectStore<T>): StoreChange<T>[] {
    const out: StoreChange<T>[] = [];
    for (const [key, obj] of next.objects) {
      const previous = this.objects.get(key);
      if (!previous || !sameVersion(previous, obj)) out.push({ kind: 'add', obj, previous });
    }
    return out;
  }
}

function sameVersion(a: KubernetesObject, b: KubernetesObject): boolean {
  const rv = a.metadata?.resourceVersion;
  return rv !== undefined && rv !== '' && rv === b.metadata?.resourceVersion;
}
