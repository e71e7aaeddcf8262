/**
 * Starts a real SPIRE agent (the binary scripts/real-spire/install.sh --agent
 * builds) beside a real SPIRE server from test/support/real-spire.ts: it
 * attests with a join token the server's CLI generates, trusts the bundle
 * read from the server's admin socket, and serves the Workload API on a
 * socket in its own temp folder with the `unix` workload attestor (which
 * gives a process the selectors unix:uid:<uid>, unix:gid:<gid>, ...). Only
 * the process started here is ever signalled.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SpireClient } from '../../src/spire/index.js';
import { type RealSpire, spireAgentBinary, spireServerBinary } from './real-spire.js';

export interface RealAgent {
  /** The Workload API socket. */
  readonly socketPath: string;
  /** The agent's SPIFFE ID: spiffe://<td>/spire/agent/join_token/<token>, the parent of its workloads' entries. */
  readonly agentId: string;
  log(): string;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function pem(der: Buffer): string {
  return `-----BEGIN CERTIFICATE-----\n${(der.toString('base64').match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** Starts spire-agent against `server`, waits until it has attested and serves the Workload API. */
export async function startRealAgent(server: RealSpire, opts: { binary?: string; serverBinary?: string; timeoutMs?: number } = {}): Promise<RealAgent> {
  const binary = opts.binary ?? spireAgentBinary();
  if (!existsSync(binary)) throw new Error(`no spire-agent at ${binary}: run \`npm run real-spire:install -- --agent\` (needs go), or set SPIRE_AGENT_BIN`);
  const dir = mkdtempSync(join(tmpdir(), 'real-agent-'));
  const socketPath = join(dir, 'agent.sock');
  const { stdout } = await promisify(execFile)(opts.serverBinary ?? spireServerBinary(), ['token', 'generate', '-socketPath', server.socketPath, '-ttl', '600']);
  const token = /Token: (\S+)/.exec(stdout)?.[1];
  if (!token) throw new Error(`spire-server token generate printed no token: ${stdout}`);
  const admin = new SpireClient({ socket: server.socketPath });
  try {
    const bundle = await admin.getBundle();
    writeFileSync(join(dir, 'bundle.pem'), bundle.x509_authorities.map((a) => pem(a.asn1)).join(''));
  } finally {
    admin.close();
  }
  const s = JSON.stringify;
  const [host, port] = server.address.split(':') as [string, string];
  writeFileSync(
    join(dir, 'agent.conf'),
    `agent {
  data_dir = ${s(join(dir, 'data'))}
  log_level = "INFO"
  server_address = ${s(host)}
  server_port = ${s(port)}
  socket_path = ${s(socketPath)}
  trust_bundle_path = ${s(join(dir, 'bundle.pem'))}
  trust_domain = ${s(server.trustDomain)}
  join_token = ${s(token)}
}

plugins {
  NodeAttestor "join_token" {
    plugin_data {}
  }
  KeyManager "memory" {
    plugin_data {}
  }
  WorkloadAttestor "unix" {
    plugin_data {}
  }
}
`,
  );
  let output = '';
  const child = spawn(binary, ['run', '-config', join(dir, 'agent.conf')], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => (child.kill('SIGKILL'), resolve()), 10_000);
        child.once('exit', () => (clearTimeout(timer), resolve()));
      });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // The socket appears once the agent has attested and started its endpoints.
  const end = Date.now() + (opts.timeoutMs ?? 60_000);
  while (!existsSync(socketPath)) {
    if (child.exitCode !== null || Date.now() > end) {
      await stop();
      throw new Error(`spire-agent did not serve ${socketPath}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { socketPath, agentId: `spiffe://${server.trustDomain}/spire/agent/join_token/${token}`, log: () => output, stop };
}
