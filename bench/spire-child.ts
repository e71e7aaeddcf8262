/**
 * Child process for the side-by-side benchmark (`--peer`): the in-memory SPIRE
 * server, watched from the server's side, so both controllers are measured by
 * what SPIRE saw rather than by what each says about itself:
 * - the moment the entry count first reaches a target (cold convergence);
 * - the moment each pod's entry was created (its `k8s:pod-uid` selector);
 * - every call, with its method, item count and time (idle resyncs).
 */
import { formatSpiffeId } from '../src/spiffe/index.js';
import { MemorySpireServer } from '../src/memspire/index.js';
import type { StoredEntry } from '../src/memspire/entries.js';

type Msg =
  | { type: 'target'; entries: number }
  | { type: 'calls'; since: number }
  | { type: 'acks'; uids: string[] }
  | { type: 'entries' };

const socketPath = process.argv[2] as string;
/**
 * `resync`: the start of a controller's resync, for both controllers its
 * ListFederationRelationships call (each resync makes one; ours lists only a
 * slice of the entries in one, and starts its walk over them with no page
 * token only once in several).
 */
const calls: { method: string; items: number; at: number; resync: boolean }[] = [];
const ackedAt = new Map<string, number>();
let target: number | undefined;

interface CreateRequest {
  entries: { selectors: { type: string; value: string }[] }[];
}
interface CreateResponse {
  results: { status: { code: number } | null }[];
}

const server = await MemorySpireServer.start({
  socketPath,
  trustDomain: 'example.org',
  onCall(method, request, response) {
    const now = Date.now();
    const items = method.startsWith('Batch') ? Object.values(request as Record<string, unknown>).find(Array.isArray)?.length ?? 0 : 0;
    calls.push({ method, items, at: now, resync: method === 'ListFederationRelationships' });
    if (method === 'BatchCreateEntry') {
      const req = request as CreateRequest;
      (response as CreateResponse).results.forEach((r, i) => {
        if (r.status?.code !== 0) return;
        for (const s of req.entries[i]?.selectors ?? []) {
          if (s.type === 'k8s' && s.value.startsWith('pod-uid:') && !ackedAt.has(s.value.slice(8))) ackedAt.set(s.value.slice(8), now);
        }
      });
    }
    checkTarget();
  },
});

/** An entry without what the server chose (ID, revision, creation time), for comparing two controllers' output. */
function toPlain(e: StoredEntry): Record<string, unknown> {
  return {
    spiffeId: formatSpiffeId(e.spiffeId),
    parentId: formatSpiffeId(e.parentId),
    selectors: e.selectors.map((s) => `${s.type}:${s.value}`).sort(),
    dnsNames: e.dnsNames,
    federatesWith: [...e.federatesWith].sort(),
    x509SvidTtl: e.x509SvidTtl,
    jwtSvidTtl: e.jwtSvidTtl,
    admin: e.admin,
    downstream: e.downstream,
    hint: e.hint,
    storeSvid: e.storeSvid,
    idPrefix: /^[^.]*\./.exec(e.id)?.[0] ?? '',
  };
}

function checkTarget(): void {
  if (target !== undefined && server.entries.size >= target) {
    process.send?.({ type: 'converged', at: Date.now(), entries: server.entries.size });
    target = undefined;
  }
}

process.on('message', (msg: Msg) => {
  switch (msg.type) {
    case 'target':
      target = msg.entries;
      checkTarget();
      break;
    case 'calls':
      process.send?.({ type: 'calls', calls: calls.filter((c) => c.at >= msg.since) });
      break;
    case 'acks':
      process.send?.({ type: 'acks', at: msg.uids.map((u) => ackedAt.get(u) ?? null) });
      break;
    case 'entries':
      process.send?.({ type: 'entries', entries: server.entries.all().map(toPlain) });
      break;
  }
});
process.send?.({ type: 'ready' });
