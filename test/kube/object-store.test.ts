import { describe, expect, it } from 'vitest';
import { ObjectStore } from '../../src/kube/object-store.js';

const obj = (name: string, resourceVersion: string, namespace?: string) => ({ metadata: { name, resourceVersion, ...(namespace ? { namespace } : {}) } });

describe("an informer's store says what each write changed, with the object it replaced", () => {
  it('adds, updates with the previous object, skips the same resourceVersion, and deletes only what it holds', () => {
    const store = new ObjectStore();
    const a1 = obj('a', '1', 'ns');
    expect(store.put(a1)).toEqual({ kind: 'add', obj: a1, previous: undefined });
    const a2 = obj('a', '2', 'ns');
    expect(store.put(a2)).toEqual({ kind: 'update', obj: a2, previous: a1 });
    expect(store.put(obj('a', '2', 'ns'))).toBeUndefined();
    expect(store.get('a', 'ns')).toEqual(a2);
    expect(store.get('a')).toBeUndefined();
    expect(store.remove(obj('b', '3', 'ns'))).toBeUndefined();
    const gone = obj('a', '4', 'ns');
    expect(store.remove(gone)).toEqual({ kind: 'delete', obj: gone, previous: a2 });
    expect(store.size).toBe(0);
  });

  it('a list that replaces it reports each listed object as added, with the one held, except those at the same version, and no deletes', () => {
    const same = obj('same', '1');
    const changedBefore = obj('changed', '1');
    const old = new ObjectStore([same, changedBefore, obj('gone', '1')]);
    const changed = obj('changed', '5');
    const fresh = obj('new', '6');
    const next = new ObjectStore([obj('same', '1'), changed, fresh]);
    expect(old.listedChanges(next)).toEqual([
      { kind: 'add', obj: changed, previous: changedBefore },
      { kind: 'add', obj: fresh, previous: undefined },
    ]);
    expect(next.list().map((o) => o.metadata.name)).toEqual(['same', 'changed', 'new']);
  });
});
