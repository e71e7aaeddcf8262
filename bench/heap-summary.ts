/**
 * What a V8 heap snapshot holds, by kind: a profiling aid for the benchmark's
 * `BENCH_HEAP_SNAPSHOT=DIR` snapshots. Not a test; it prints and asserts nothing.
 *
 *   npx tsx bench/heap-summary.ts DIR/steady-100000.heapsnapshot [--top 30]
 *
 * Prints the self size by node type and constructor, and the objects that
 * retain the most (their dominator-tree retained size), each with the edge
 * that holds it: enough to tell the pod cache from the render cache and the
 * SPIRE state. The file is read as a stream (a snapshot of a large heap is a
 * longer string than V8 allows), and retained sizes come from the dominator
 * tree (Cooper, Harvey and Kennedy's iterative algorithm over a reverse
 * postorder), ignoring weak edges as DevTools does.
 */
import { createReadStream } from 'node:fs';

interface Meta {
  node_fields: string[];
  node_types: [string[], ...unknown[]];
  edge_fields: string[];
  edge_types: [string[], ...unknown[]];
}

/** Grows an Int32Array-backed list of numbers. */
class Numbers {
  data = new Float64Array(1 << 20);
  length = 0;
  push(n: number): void {
    if (this.length === this.data.length) {
      const more = new Float64Array(this.data.length * 2);
      more.set(this.data);
      this.data = more;
    }
    this.data[this.length++] = n;
  }
}

/**
 * Reads `{"snapshot":{...},"nodes":[...],"edges":[...],...,"strings":[...]}`
 * without holding it as one string: the number arrays go straight into typed
 * arrays, the rest is collected per member and parsed on its own.
 */
async function readSnapshot(file: string): Promise<{ meta: Meta; nodes: Float64Array; edges: Float64Array; strings: string[] }> {
  const members = new Map<string, string>();
  const arrays = new Map<string, Numbers>();
  let key = '';
  let state: 'key' | 'value' | 'numbers' = 'key';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let text = '';
  let num = '';
  let keyText = '';
  let collectingKey = false;
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 22 })) {
    const s = chunk as string;
    let i = 0;
    while (i < s.length) {
      const c = s[i]!;
      if (state === 'key') {
        if (collectingKey) {
          if (c === '"') {
            collectingKey = false;
            key = keyText;
            keyText = '';
          } else keyText += c;
        } else if (c === '"') collectingKey = true;
        else if (c === ':') {
          state = key === 'nodes' || key === 'edges' ? 'numbers' : 'value';
          if (state === 'numbers') arrays.set(key, new Numbers());
          depth = 0;
          text = '';
        }
        i++;
        continue;
      }
      if (state === 'numbers') {
        if (c >= '0' && c <= '9') num += c;
        else {
          if (num) {
            arrays.get(key)!.push(Number(num));
            num = '';
          }
          if (c === ']') state = 'key';
        }
        i++;
        continue;
      }
      // A JSON value of another member: copied until its brackets close.
      let j = i;
      for (; j < s.length; j++) {
        const d = s[j]!;
        if (inString) {
          if (escaped) escaped = false;
          else if (d === '\\') escaped = true;
          else if (d === '"') inString = false;
        } else if (d === '"') inString = true;
        else if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') {
          depth--;
          if (depth === 0) {
            j++;
            break;
          }
        }
      }
      text += s.slice(i, j);
      i = j;
      if (depth === 0 && text.trim() !== '') {
        members.set(key, text);
        text = '';
        state = 'key';
      }
    }
  }
  const snapshot = JSON.parse(members.get('snapshot')!) as { meta: Meta };
  const strings = JSON.parse(members.get('strings')!) as string[];
  const nodes = arrays.get('nodes')!;
  const edges = arrays.get('edges')!;
  return { meta: snapshot.meta, nodes: nodes.data.subarray(0, nodes.length), edges: edges.data.subarray(0, edges.length), strings };
}

const file = process.argv[2];
if (!file) {
  console.error('usage: npx tsx bench/heap-summary.ts FILE.heapsnapshot [--top N]');
  process.exit(2);
}
const topAt = process.argv.indexOf('--top');
const TOP = topAt === -1 ? 30 : Number(process.argv[topAt + 1]);

const { meta, nodes, edges, strings } = await readSnapshot(file);
const NF = meta.node_fields.length;
const EF = meta.edge_fields.length;
const nType = meta.node_fields.indexOf('type');
const nName = meta.node_fields.indexOf('name');
const nSelf = meta.node_fields.indexOf('self_size');
const nEdges = meta.node_fields.indexOf('edge_count');
const eType = meta.edge_fields.indexOf('type');
const eName = meta.edge_fields.indexOf('name_or_index');
const eTo = meta.edge_fields.indexOf('to_node');
const nodeTypes = meta.node_types[0];
const edgeTypes = meta.edge_types[0];
const WEAK = edgeTypes.indexOf('weak');
const SHORTCUT = edgeTypes.indexOf('shortcut');
const ELEMENT = edgeTypes.indexOf('element');
const HIDDEN = edgeTypes.indexOf('hidden');
const N = nodes.length / NF;

// First edge of each node.
const firstEdge = new Uint32Array(N + 1);
for (let n = 0, e = 0; n < N; n++) {
  firstEdge[n] = e;
  e += nodes[n * NF + nEdges]! * EF;
}
firstEdge[N] = edges.length;
const target = (e: number) => edges[e + eTo]! / NF;
const retaining = (e: number) => {
  const t = edges[e + eType]!;
  return t !== WEAK && t !== SHORTCUT;
};

// Reverse postorder from the root (node 0), iteratively.
const order = new Int32Array(N).fill(-1);
const post: number[] = [];
{
  const stack = [0];
  const next = new Uint32Array(N);
  const visited = new Uint8Array(N);
  visited[0] = 1;
  for (let n = 0; n < N; n++) next[n] = firstEdge[n]!;
  while (stack.length) {
    const n = stack[stack.length - 1]!;
    let pushed = false;
    while (next[n]! < firstEdge[n + 1]!) {
      const e = next[n]!;
      next[n] = e + EF;
      if (!retaining(e)) continue;
      const t = target(e);
      if (!visited[t]) {
        visited[t] = 1;
        stack.push(t);
        pushed = true;
        break;
      }
    }
    if (!pushed && stack[stack.length - 1] === n) {
      stack.pop();
      order[n] = post.length;
      post.push(n);
    }
  }
}

// Predecessors (retaining edges between reachable nodes), as CSR.
const predCount = new Uint32Array(N + 1);
for (let n = 0; n < N; n++) {
  if (order[n]! < 0) continue;
  for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e += EF) if (retaining(e) && order[target(e)]! >= 0) predCount[target(e) + 1]!++;
}
for (let n = 0; n < N; n++) predCount[n + 1]! += predCount[n]!;
const preds = new Uint32Array(predCount[N]!);
{
  const fill = predCount.slice(0, N);
  for (let n = 0; n < N; n++) {
    if (order[n]! < 0) continue;
    for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e += EF) if (retaining(e) && order[target(e)]! >= 0) preds[fill[target(e)]!++] = n;
  }
}

// Dominators over postorder numbers.
const R = post.length;
const idom = new Int32Array(R).fill(-1);
idom[R - 1] = R - 1; // the root is last in postorder
for (let changed = true; changed; ) {
  changed = false;
  for (let i = R - 2; i >= 0; i--) {
    const n = post[i]!;
    let best = -1;
    for (let p = predCount[n]!; p < predCount[n + 1]!; p++) {
      let a = order[preds[p]!]!;
      if (idom[a] === -1) continue;
      if (best === -1) {
        best = a;
        continue;
      }
      let b = best;
      while (a !== b) {
        while (a < b) a = idom[a]!;
        while (b < a) b = idom[b]!;
      }
      best = a;
    }
    if (best !== -1 && idom[i] !== best) {
      idom[i] = best;
      changed = true;
    }
  }
}

const selfOf = (n: number) => nodes[n * NF + nSelf]!;
const retained = new Float64Array(R);
for (let i = 0; i < R; i++) retained[i] = selfOf(post[i]!);
for (let i = 0; i < R - 1; i++) if (idom[i]! >= 0) retained[idom[i]!]! += retained[i]!;

const mib = (x: number) => (x / 2 ** 20).toFixed(1);
const label = (n: number) => {
  const type = nodeTypes[nodes[n * NF + nType]!]!;
  const name = strings[nodes[n * NF + nName]!]!;
  return type === 'object' || type === 'closure' || type === 'native' ? `${type} ${name.slice(0, 60)}` : type;
};

console.log(`${file}: ${N} nodes, ${R} reachable; heap ${mib(retained[R - 1]!)} MiB`);
console.log('\nSelf size by kind:');
const byKind = new Map<string, { size: number; count: number }>();
for (let i = 0; i < R; i++) {
  const n = post[i]!;
  const k = label(n);
  const at = byKind.get(k) ?? { size: 0, count: 0 };
  at.size += selfOf(n);
  at.count++;
  byKind.set(k, at);
}
for (const [k, v] of [...byKind].sort((a, b) => b[1].size - a[1].size).slice(0, TOP)) console.log(`  ${mib(v.size).padStart(7)} MiB  ${String(v.count).padStart(9)}  ${k}`);

// Plain objects by their property names, strings by what they look like (digits folded), backing arrays by
// who holds them: shared objects have no single owner in the dominator tree, but their shapes tell whose they are.
const PROPERTY = edgeTypes.indexOf('property');
const INTERNAL = edgeTypes.indexOf('internal');
const firstRetainer = new Int32Array(N).fill(-1);
const firstRetainerEdge = new Int32Array(N).fill(-1);
for (let n = 0; n < N; n++) {
  for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e += EF) {
    const t = target(e);
    if (retaining(e) && firstRetainer[t] === -1) {
      firstRetainer[t] = n;
      firstRetainerEdge[t] = e;
    }
  }
}
const shapes = new Map<string, { size: number; count: number }>();
const tally = (k: string, size: number) => {
  const at = shapes.get(k) ?? { size: 0, count: 0 };
  at.size += size;
  at.count++;
  shapes.set(k, at);
};
const stringPattern = (text: string) => {
  if (/^[A-Za-z0-9+/]{43}=$/.test(text)) return '<sha-256, base64>';
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(text) && !/^0{8}/.test(text)) return '<random uuid>';
  return JSON.stringify(text.replace(/[0-9]+/g, '#').slice(0, 60));
};
for (let i = 0; i < R; i++) {
  const n = post[i]!;
  const type = nodeTypes[nodes[n * NF + nType]!]!;
  const self = selfOf(n);
  if (type === 'object' && strings[nodes[n * NF + nName]!] === 'Object') {
    const names: string[] = [];
    for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e += EF) if (edges[e + eType] === PROPERTY) names.push(strings[edges[e + eName]!]!);
    tally(`object {${names.slice(0, 8).join(',')}${names.length > 8 ? ',…' : ''}}`, self);
  } else if (type === 'string' || type === 'concatenated string' || type === 'sliced string') {
    tally(`string ${stringPattern(strings[nodes[n * NF + nName]!]!)}`, self);
  } else if (type === 'array') {
    const by = firstRetainer[n]!;
    const via = firstRetainerEdge[n]!;
    const how = via === -1 ? '?' : edges[via + eType] === ELEMENT || edges[via + eType] === INTERNAL ? `[${edges[via + eName]}]` : strings[edges[via + eName]!]!;
    tally(`array, .${how} of ${by === -1 ? '?' : label(by)}`, self);
  }
}
console.log('\nPlain objects by property names, strings by pattern, arrays by holder:');
for (const [k, v] of [...shapes].sort((a, b) => b[1].size - a[1].size).slice(0, TOP)) console.log(`  ${mib(v.size).padStart(7)} MiB  ${String(v.count).padStart(9)}  ${k}`);

// The dominator tree from the root, down to nodes holding at least 1% of the heap: who holds what.
const edgeName = (from: number, to: number) => {
  for (let e = firstEdge[from]!; e < firstEdge[from + 1]!; e += EF) {
    if (target(e) !== to) continue;
    const t = edges[e + eType]!;
    return t === ELEMENT || t === HIDDEN ? `[${edges[e + eName]}]` : strings[edges[e + eName]!]!;
  }
  return '(indirect)';
};
const children: number[][] = Array.from({ length: R }, () => []);
for (let i = 0; i < R - 1; i++) if (idom[i]! >= 0) children[idom[i]!]!.push(i);
const floor = retained[R - 1]! / 100;
console.log(`\nDominator tree (retained MiB, self MiB; nodes retaining at least ${mib(floor)} MiB):`);
const show = (i: number, depth: number, via: number) => {
  const n = post[i]!;
  if (depth > 0) console.log(`  ${'  '.repeat(depth - 1)}${mib(retained[i]!).padStart(7)} ${mib(selfOf(n)).padStart(6)}  .${edgeName(post[via]!, n)}: ${label(n)}`);
  const kids = children[i]!.filter((k) => retained[k]! >= floor).sort((a, b) => retained[b]! - retained[a]!);
  for (const k of kids) show(k, depth + 1, i);
};
show(R - 1, 0, R - 1);
