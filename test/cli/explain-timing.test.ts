import { describe, expect, it } from 'vitest';
import { entryTiming, podScheduledAt } from '../../src/cli/explain-timing.js';

const at = (iso: string) => Date.parse(iso) / 1000;
const pod = (created: string, scheduled?: string) => ({
  metadata: { name: 'web', namespace: 'apps', uid: 'u', creationTimestamp: created },
  status: { phase: 'Running', ...(scheduled ? { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2030-01-01T00:00:00Z' }, { type: 'PodScheduled', status: 'True', lastTransitionTime: scheduled }] } : {}) },
});

describe("explain pod: when an entry was created, from SPIRE's and the API server's timestamps", () => {
  it('measures from the binding when the pod was scheduled before its entry was created', () => {
    const t = entryTiming({ entry: { id: 'e1', createdAt: at('2026-05-01T10:00:05Z'), revision: '0' }, pod: pod('2026-05-01T09:59:00Z', '2026-05-01T10:00:02Z'), objectCreated: '2026-01-01T00:00:00Z' });
    expect(t).toEqual({
      id: 'e1',
      created: '2026-05-01T10:00:05Z',
      updatedSince: false,
      after: { seconds: 3, since: 'pod-scheduled', at: '2026-05-01T10:00:02Z' },
      detail: 'created 2026-05-01T10:00:05Z, 3 s after the pod was scheduled (2026-05-01T10:00:02Z)',
    });
  });

  it("measures from the pod's creation when its PodScheduled condition came after the entry (the kubelet's, for a pod created on its node)", () => {
    const t = entryTiming({ entry: { id: 'e1', createdAt: at('2026-05-01T10:00:01Z') }, pod: pod('2026-05-01T10:00:00Z', '2026-05-01T10:00:04Z') });
    expect(t.after).toEqual({ seconds: 1, since: 'pod-created', at: '2026-05-01T10:00:00Z' });
    expect(podScheduledAt(pod('2026-05-01T10:00:00Z'))).toBeUndefined();
  });

  it('measures from the ClusterSPIFFEID when it was created after the pod was scheduled', () => {
    const t = entryTiming({ entry: { id: 'e1', createdAt: at('2026-05-01T12:00:00Z') }, pod: pod('2026-05-01T10:00:00Z', '2026-05-01T10:00:01Z'), objectCreated: '2026-05-01T11:59:58Z' });
    expect(t.detail).toBe('created 2026-05-01T12:00:00Z, 2 s after its ClusterSPIFFEID was created (2026-05-01T11:59:58Z)');
  });

  it('says an update happened but not when, that a SPIRE server older than 1.6.3 keeps no creation time, and that the clocks differ', () => {
    expect(entryTiming({ entry: { id: 'e1', createdAt: at('2026-05-01T10:00:05Z'), revision: '4' }, pod: pod('2026-05-01T10:00:00Z') }).detail).toBe(
      'created 2026-05-01T10:00:05Z, 5 s after the pod was created (2026-05-01T10:00:00Z); updated since (revision 4), at a time SPIRE does not keep',
    );
    expect(entryTiming({ entry: { id: 'e1' }, pod: pod('2026-05-01T10:00:00Z') })).toEqual({
      id: 'e1',
      updatedSince: false,
      detail: 'SPIRE does not say when it was created (created_at is reported by SPIRE 1.6.3 and later)',
    });
    const skewed = entryTiming({ entry: { id: 'e1', createdAt: at('2026-05-01T09:59:58Z') }, pod: pod('2026-05-01T10:00:00Z') });
    expect(skewed.after?.seconds).toBe(0);
    expect(skewed.detail).toBe("created 2026-05-01T09:59:58Z, 2 s before the pod was created (2026-05-01T10:00:00Z) by the two servers' clocks, which differ");
  });
});
