/**
 * The API server children's side of the event phase: on a `createPods`
 * message, pods created at the given rate, each reported with the moment its
 * create finished, all at once when the last one has.
 */
type Msg = { type: 'createPods'; from: number; count: number; perSecond: number };

/** `create` makes pod `index` of the synthetic cluster and gives its UID (at once, or when the server answers). */
export function servePodCreates(create: (index: number) => string | Promise<string>): void {
  process.on('message', (msg: Msg) => {
    if (msg.type !== 'createPods') return;
    const created: { uid: string; at: number }[] = [];
    const interval = 1000 / msg.perSecond;
    const started = Date.now();
    let sent = 0;
    const record = (uid: string) => {
      created.push({ uid, at: Date.now() });
      if (created.length === msg.count) process.send?.({ type: 'created', pods: created });
    };
    const next = () => {
      // Paced by wall clock, and not waiting for answers, so a slow tick or create does not lower the rate.
      while (sent < msg.count && Date.now() - started >= sent * interval) {
        const uid = create(msg.from + sent);
        sent++;
        if (typeof uid === 'string') record(uid);
        else void uid.then(record);
      }
      if (sent < msg.count) setTimeout(next, Math.max(0, started + sent * interval - Date.now()));
    };
    next();
  });
}
