/**
 * The controller's CPU for a full list of SPIRE's entries right after its own
 * writes: N pod entries are created through applyPlan and recorded in a
 * CurrentState, then each round updates K of them (a pod change) through
 * applyPlan, records the writes and lists every entry again. The in-memory
 * SPIRE server runs in a child process, so every figure is this process's
 * own CPU: the creates (sending them, reading the answers), the list (decoding
 * the pages) and the fold of the listed pages into the state, timed apart from
 * the decoding.
 *
 *   npx tsx bench/list-fold.ts [--entries 100000] [--changed 1000] [--rounds 7]
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { applyPlan, CurrentState } from '../src/entries/index.js';
import { entryKey, type EntrySpec } from '../src/entries/model.js';
import type { Plan, PlannedCreate } from '../src/entries/plan.js';
import { MemorySpireServer } from '../src/memspire/index.js';
import { type EntryOut, SpireClient } from '../src/spire/index.js';
import { median } from './stats.js';

function cpuMs(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}


const owner = { kind: 'ClusterSPIFFEID' as const, name: 'bench', uid: 'bench', creationTimestamp: '' };

function podSpec(i: number): EntrySpec {
  return {
    spiffeId: `spiffe://example.org/ns/ns-${i % 2000}/sa/sa-${i}`,
    parentId: `spiffe://example.org/spire/agent/k8s_psat/demo/node-${i % 1000}`,
    selectors: [{ type: 'k8s', value: `pod-uid:00000000-0000-4000-8000-${String(i).padStart(12, '0')}` }],
    x509SvidTtl: 0,
    jwtSvidTtl: 0,
    federatesWith: [],
    dnsNames: [`pod-${i}.ns-${i % 2000}.svc`],
    admin: false,
    downstream: false,
    storeSvid: false,
    hint: '',
  };
}

const emptyPlan = (): Plan => ({ creates: [], updates: [], deletes: [], conflicts: [], kept: [], keys: new Map(), adopted: [], outsideScope: 0 });

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { entries: { type: 'string', default: '100000' }, changed: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '7' } } });
  const n = Number(values.entries);
  const k = Number(values.changed);
  const rounds = Number(values.rounds);
  const dir = mkdtempSync(join(tmpdir(), 'list-fold-'));
  const socket = join(dir, 'api.sock');
  const child = fork(import.meta.filename, ['serve', socket], { execArgv: ['--import', 'tsx'] });
  await new Promise<void>((resolve) => child.once('message', () => resolve()));
  const client = new SpireClient({ socket });
  try {
    const state = new CurrentState(3_600_000);
    await state.replaceFromPages(client.entryPages());
    const creates: PlannedCreate[] = [];
    for (let i = 0; i < n; i++) {
      const spec = podSpec(i);
      creates.push({ id: `scm-demo.${i}`, key: entryKey(spec), spec, owner, podUid: spec.selectors[0]!.value.slice('pod-uid:'.length) });
    }
    const plan = { ...emptyPlan(), creates };
    let start = process.cpuUsage();
    const created = await applyPlan(plan, client);
    const createMs = cpuMs(start);
    state.record(plan, created);
    if (created.created !== n) throw new Error(`created ${created.created} of ${n}`);

    const fold: number[] = [];
    const list: number[] = [];
    const builds = () => ('indexBuilds' in state ? String(state.indexBuilds) : 'n/a');
    const buildsBefore = builds();
    for (let r = 0; r < rounds; r++) {
      const updates = state
        .values()
        .slice(r * k, (r + 1) * k)
        .map((e) => ({ id: e.id, key: e.key, spec: { ...e.spec, hint: `round ${r}` }, current: e.spec, changed: ['hint' as const], owner, ...(e.podUid !== undefined ? { podUid: e.podUid } : {}) }));
      const updatePlan = { ...emptyPlan(), updates };
      state.record(updatePlan, await applyPlan(updatePlan, client));
      start = process.cpuUsage();
      const pages: EntryOut[][] = [];
      for await (const page of client.entryPages()) pages.push(page);
      list.push(cpuMs(start));
      start = process.cpuUsage();
      await state.replaceFromPages(
        (async function* () {
          yield* pages;
        })(),
      );
      fold.push(cpuMs(start));
    }
    console.log(
      JSON.stringify({
        entries: n,
        changedPerRound: k,
        rounds,
        createCpuMs: Math.round(createMs),
        listDecodeCpuMsMedian: Math.round(median(list)),
        foldCpuMsMedian: Math.round(median(fold) * 10) / 10,
        foldCpuMs: fold.map((x) => Math.round(x * 10) / 10),
        indexBuilds: `${buildsBefore} -> ${builds()}`,
      }),
    );
  } finally {
    client.close();
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'serve') {
  await MemorySpireServer.start({ socketPath: process.argv[3]!, trustDomain: 'example.org' });
  process.send?.('ready');
} else {
  await main();
}
