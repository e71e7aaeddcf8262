/**
 * An etcd backup and restore as an operator does it, for the lane's etcd:
 * a snapshot saved from the running member (what `etcdctl snapshot save`
 * asks for: the Maintenance API's Snapshot stream, here through etcd's
 * HTTP gateway, so no etcdctl is needed), and the offline restore of that
 * file into a new data directory with etcdutl (built by
 * scripts/real-k8s/build.sh at etcd's own version).
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { fetch } from 'undici';

const run = promisify(execFile);

export interface EtcdSnapshot {
  /** The snapshot file, as `etcdctl snapshot save` writes it (its SHA-256 at the end, which etcdutl checks). */
  path: string;
  /** etcd's revision when it was taken: the resourceVersion the restored API server starts from (before any bump). */
  revision: number;
}

/**
 * Saves a snapshot of the member at `etcdUrl` to `path`. The gateway sends the
 * stream as one JSON object per message, each a chunk of the file in base64;
 * the member's SHA-256 of the file comes as the last chunk.
 */
export async function saveEtcdSnapshot(etcdUrl: string, path: string): Promise<EtcdSnapshot> {
  const revision = await etcdRevisionAt(etcdUrl);
  const res = await fetch(`${etcdUrl}/v3/maintenance/snapshot`, { method: 'POST', body: '{}' });
  const text = await res.text();
  if (!res.ok) throw new Error(`etcd snapshot: ${res.status} ${text.slice(0, 500)}`);
  const chunks: Buffer[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const msg = JSON.parse(line) as { result?: { blob?: string }; error?: { message?: string } };
    if (msg.error) throw new Error(`etcd snapshot: ${msg.error.message ?? line.slice(0, 200)}`);
    if (msg.result?.blob) chunks.push(Buffer.from(msg.result.blob, 'base64'));
  }
  const file = Buffer.concat(chunks);
  if (file.length === 0) throw new Error('etcd snapshot: the stream held no data');
  writeFileSync(path, file, { mode: 0o600 });
  return { path, revision };
}

/** etcd's current revision, from a one-key range request through the gateway. */
export async function etcdRevisionAt(etcdUrl: string): Promise<number> {
  const res = await fetch(`${etcdUrl}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from('/').toString('base64') }) });
  const text = await res.text();
  if (!res.ok) throw new Error(`etcd range: ${res.status} ${text}`);
  return Number((JSON.parse(text) as { header: { revision: string } }).header.revision);
}

export interface RestoreOptions {
  /**
   * `--bump-revision`: how far past the snapshot's revision the restored
   * member's revision starts. etcd's guidance for Kubernetes is a bump larger
   * than the writes made since the snapshot, so no resourceVersion a client
   * holds is ever reused for different data. 0: no bump (and no mark).
   */
  bumpRevision: number;
  /** `--mark-compacted`: every revision up to the bumped one is compacted, so a watch from one answers 410 Gone. etcdutl requires it with a bump. */
  markCompacted: boolean;
}

/**
 * Restores `snapshot` into the new data directory `dataDir` for a
 * one-member cluster named `name`, whose peer URL is `peerUrl` (the flags
 * etcd itself is then started with). Returns etcdutl's output.
 */
export async function restoreEtcdSnapshot(etcdutl: string, snapshot: string, dataDir: string, member: { name: string; peerUrl: string }, opts: RestoreOptions): Promise<string> {
  const args = [
    'snapshot',
    'restore',
    snapshot,
    `--data-dir=${dataDir}`,
    `--name=${member.name}`,
    `--initial-cluster=${member.name}=${member.peerUrl}`,
    `--initial-advertise-peer-urls=${member.peerUrl}`,
    ...(opts.bumpRevision > 0 ? [`--bump-revision=${opts.bumpRevision}`] : []),
    ...(opts.markCompacted ? ['--mark-compacted'] : []),
  ];
  try {
    const { stdout, stderr } = await run(etcdutl, args, { maxBuffer: 4 << 20 });
    return `${stdout}${stderr}`;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`etcdutl ${args.join(' ')}: ${e.stderr?.trim() || e.message}`, { cause: err });
  }
}
