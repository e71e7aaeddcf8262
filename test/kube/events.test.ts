import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventRecorder, type EventSubject } from '../../src/kube/events.js';
import { FakeKubeApiServer } from '../support/kube/index.js';
import { eventually } from '../kube-apiserver/helpers.js';

const log = pino({ level: 'silent' });
const INTERVAL = 60_000;
const csid = (name: string): EventSubject => ({ kind: 'ClusterSPIFFEID', name, uid: `uid-${name}` });

describe('warnings become Events, each repeated at most once per interval, and the memory of them stays bounded', () => {
  let kube: FakeKubeApiServer;
  let clock = 1_000_000;
  beforeEach(async () => {
    kube = await FakeKubeApiServer.start();
    clock = 1_000_000;
  });
  afterEach(async () => {
    await kube.close();
  });

  const recorder = (capacity?: number) => new EventRecorder(kube.kubeConfig(), log, INTERVAL, () => clock, capacity);
  const messages = () =>
    kube
      .list('v1', 'Event', 'default')
      .map((e) => (e as { message?: string }).message ?? '')
      .sort();

  it('posts a repeated warning once within the interval, and again after it', async () => {
    const events = recorder();
    events.warn(csid('a'), 'RenderFailed', 'pod x: bad template');
    clock += INTERVAL - 1;
    events.warn(csid('a'), 'RenderFailed', 'pod x: bad template');
    events.warn(csid('a'), 'RenderFailed', 'pod y: bad template');
    await eventually(() => messages().length === 2, 'two events');
    clock += 1;
    events.warn(csid('a'), 'RenderFailed', 'pod x: bad template');
    await eventually(() => messages().length === 3, 'the repeat after the interval');
    expect(messages()).toEqual(['pod x: bad template', 'pod x: bad template', 'pod y: bad template']);
  });

  it('forgets warnings older than the interval', async () => {
    const events = recorder();
    for (let i = 0; i < 100; i++) events.warn(csid('a'), 'RenderFailed', `pod ${i}: bad template`);
    expect(events.remembered).toBe(100);
    clock += INTERVAL / 2;
    events.warn(csid('a'), 'RenderFailed', 'pod 0: bad template'); // still fresh: not sent, and not moved
    events.warn(csid('b'), 'RenderFailed', 'late');
    expect(events.remembered).toBe(101);
    clock += INTERVAL / 2;
    events.warn(csid('c'), 'RenderFailed', 'later');
    // The first hundred aged out; the one sent half an interval ago is kept.
    expect(events.remembered).toBe(2);
    await eventually(() => messages().length === 102, 'every first warning posted');
  });

  it('remembers no more than its capacity: once full of fresh warnings, a new one waits until the oldest age out', async () => {
    const events = recorder(5);
    for (let i = 0; i < 8; i++) {
      events.warn(csid('a'), 'RenderFailed', `pod ${i}`);
      expect(events.remembered).toBeLessThanOrEqual(5);
    }
    expect(events.remembered).toBe(5);
    clock += INTERVAL;
    events.warn(csid('a'), 'RenderFailed', 'pod 7');
    expect(events.remembered).toBe(1);
    await eventually(() => messages().includes('pod 7'), 'the dropped warning, posted once the window passed');
    expect(messages()).toEqual(['pod 0', 'pod 1', 'pod 2', 'pod 3', 'pod 4', 'pod 7']);
  });
});
