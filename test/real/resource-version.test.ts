/**
 * What a real kube-apiserver answers for a resourceVersion it has not
 * reached (an etcd restored from a backup is behind what clients hold), next
 * to what the fake answers: the informers' recovery (ResilientInformer:
 * relist on "Too large resource version") is built on these answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { type ControlPlane, startControlPlane } from '../support/real-k8s/index.js';

interface Answer {
  status: number;
  lines: { type?: string; object?: Record<string, unknown> }[];
  body?: Record<string, unknown>;
}

function answer(raw: { status: number; text: string }): Answer {
  const lines = raw.text.split('\n').filter((l) => l.trim() !== '');
  if (raw.status !== 200) return { status: raw.status, lines: [], body: JSON.parse(raw.text) as Record<string, unknown> };
  return { status: raw.status, lines: lines.map((l) => JSON.parse(l) as Answer['lines'][number]) };
}

const TOO_LARGE = { code: 504, reason: 'Timeout', details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] } };

describe('a resourceVersion ahead of the API server: the real one and the fake answer alike', () => {
  let plane: ControlPlane;
  let fake: FakeKubeApiServer;
  beforeAll(async () => {
    plane = await startControlPlane();
    fake = await FakeKubeApiServer.start();
  });
  afterAll(async () => {
    await fake?.close();
    await plane?.stop();
  });

  const both = async (path: (ahead: number) => string): Promise<[Answer, Answer]> => {
    const real = answer(await plane.raw(path((await plane.etcdRevision()) + 1_000)));
    const res = await fetch(`${fake.url}${path(fake.resourceVersion + 1_000)}`);
    return [real, answer({ status: res.status, text: await res.text() })];
  };

  it('a plain watch is accepted and sends nothing, not even a bookmark, until its timeout', async () => {
    for (const a of await both((rv) => `/api/v1/pods?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=3`)) {
      expect(a).toEqual({ status: 200, lines: [] });
    }
  });

  it('a watch asking for the initial events from there gets one ERROR event: 504 Timeout, ResourceVersionTooLarge', async () => {
    for (const a of await both((rv) => `/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=10`)) {
      expect(a.status).toBe(200);
      expect(a.lines).toHaveLength(1);
      expect(a.lines[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', ...TOO_LARGE } });
    }
  });

  it('a one-item list at that version answers 504 Timeout with a ResourceVersionTooLarge cause', async () => {
    for (const a of await both((rv) => `/api/v1/pods?limit=1&resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`)) {
      expect(a.status).toBe(504);
      expect(a.body).toMatchObject({ kind: 'Status', ...TOO_LARGE });
    }
  });
});
