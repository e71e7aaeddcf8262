/**
 * The bad-input corpus (README.md in this folder), through `validate`, `plan`
 * and the admission webhook: every case gets a one-line error naming the
 * file, the object, the field and the reason, and none crashes the process.
 * The CLI runs as a child process with the heap deploy/ gives the controller
 * (--max-old-space-size=192), once over the whole corpus, within the test's
 * time limit; the webhook is the real HTTPS server, called once per case.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadManifests } from '../../src/manifests/index.js';
import { AdmissionServer } from '../../src/webhook/server.js';
import { exitCode, spawnCli } from '../support/cli.js';
import { issueFileCert, PATHS, post, review } from '../webhook/helpers.js';

const CORPUS = fileURLToPath(new URL('.', import.meta.url));
const HEAP = '--max-old-space-size=192';

interface Case {
  file: string;
  /** What the `validate` line (and the `plan` log line) holds after the file's name. */
  expect: string;
  /** Sent to the webhook as a client would send it (asBody), answered with this status and message; otherwise its object is sent in a review. */
  webhook?: { status: number; message: string };
}

const header = (text: string, key: string) => text.match(new RegExp(`^# ${key}: (.*)$`, 'm'))?.[1];

function staticCases(): Case[] {
  return readdirSync(CORPUS)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((name) => {
      const file = join(CORPUS, name);
      const text = readFileSync(file, 'utf8');
      const expected = header(text, 'expect');
      if (expected === undefined) throw new Error(`${name} has no "# expect:" line`);
      const webhook = header(text, 'webhook')?.match(/^(\d{3}) (.*)$/);
      return { file, expect: expected, ...(webhook ? { webhook: { status: Number(webhook[1]), message: webhook[2]! } } : {}) };
    });
}

const SA = 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}';
const csidJson = (name: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterSPIFFEID', metadata: { name }, spec: { spiffeIDTemplate: SA, ...spec } });
const csidYaml = (name: string, specLines: string) => `apiVersion: spire.spiffe.io/v1alpha1\nkind: ClusterSPIFFEID\nmetadata:\n  name: ${name}\nspec:\n  spiffeIDTemplate: "${SA}"\n${specLines}`;
const HUGE_TEMPLATE = `spiffe://example.org/${'{{ .PodMeta.Name }}'.repeat(50_000)}`;

/** Cases too large for the repository, written when the test runs. */
const GENERATED: { name: string; text: () => string; expect: string; webhook?: Case['webhook'] }[] = [
  {
    name: 'huge-template.yaml',
    text: () => csidYaml('huge-template', '').replace(`"${SA}"`, HUGE_TEMPLATE),
    expect: `ClusterSPIFFEID/huge-template: spec.spiffeIDTemplate: template is ${HUGE_TEMPLATE.length} bytes, over the limit of 16384`,
  },
  {
    name: 'deep-json.json',
    text: () => csidJson('deep-json', { podSelector: '@' }).replace('"@"', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`),
    expect: 'ClusterSPIFFEID/deep-json: spec.podSelector.a.a.a.a.a.a...: nests deeper than 100 levels; no Kubernetes object does',
    webhook: { status: 400, message: 'request body: spec.podSelector.a.a.a.a.a.a...: nests deeper than 100 levels' },
  },
  {
    name: 'deep-yaml-flow.yaml',
    text: () => csidYaml('deep-yaml', `  podSelector: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`),
    expect: 'YAML syntax error: nests too deeply to read at line 7',
    webhook: { status: 400, message: 'request body is not JSON' },
  },
  {
    name: 'many-keys.yaml',
    text: () => csidYaml('many-keys', `  podSelector:\n    matchLabels:\n${Array.from({ length: 100_000 }, (_, i) => `      k${i}: v`).join('\n')}\n`),
    expect: 'the YAML document at line 1 (100009 lines',
    webhook: { status: 400, message: 'request body holds about' },
  },
  {
    name: 'huge-document.yaml',
    text: () => csidYaml('huge-document', `  hint: ${'h'.repeat(30 * 1024 * 1024)}\n`),
    expect: 'the YAML document at line 1 (8 lines, 30.0 MiB) would take about',
    webhook: { status: 413, message: 'request body over 8388608 bytes' },
  },
  {
    name: 'empty-objects.json',
    text: () => `{"apiVersion":"v1","kind":"List","items":[${'{},'.repeat(2_630_000)}{}]}`,
    expect: 'of JSON would take about',
    webhook: { status: 400, message: 'request body holds about' },
  },
  {
    name: 'over-webhook-limit.json',
    text: () => csidJson('padded', { hint: 'h'.repeat(9 * 1024 * 1024) }),
    expect: `ClusterSPIFFEID/padded: spec.hint: is ${9 * 1024 * 1024} bytes; SPIRE takes at most 1024`,
    webhook: { status: 413, message: 'request body over 8388608 bytes' },
  },
];

let generated: string;
let cases: Case[];
let webhook: AdmissionServer;
let tls: { ca: string; servername: string };

beforeAll(async () => {
  generated = mkdtempSync(join(tmpdir(), 'bad-inputs-'));
  for (const g of GENERATED) writeFileSync(join(generated, g.name), g.text());
  cases = [...staticCases(), ...GENERATED.map((g) => ({ file: join(generated, g.name), expect: g.expect, ...(g.webhook ? { webhook: g.webhook } : {}) }))];
  const cert = await issueFileCert(undefined, 'webhook.test');
  webhook = new AdmissionServer({ host: '127.0.0.1', port: 0, trustDomain: 'example.org', log: pino({ level: 'silent' }) });
  await webhook.install({ certPem: cert.crt, keyPem: cert.key, notAfter: new Date(Date.now() + 3600_000) });
  tls = { ca: cert.caPem, servername: 'webhook.test' };
});

afterAll(async () => {
  await webhook?.close();
  if (generated) rmSync(generated, { recursive: true, force: true });
});

/** Every case has a line naming its file and holding its expectation; every line is one line naming a case's file. */
function expectOneLinePerCase(lines: string[]): void {
  for (const c of cases) {
    const own = lines.filter((l) => l.startsWith(`${c.file}:`) || l.startsWith(`${c.file} doc `));
    expect(own.some((l) => l.includes(c.expect)), `${c.file}: ${c.expect}\n${own.join('\n')}`).toBe(true);
  }
  for (const l of lines) expect(cases.some((c) => l.startsWith(`${c.file}:`) || l.startsWith(`${c.file} doc `)), l).toBe(true);
}

/** What a client would send of a file: YAML that parses as JSON, anything else as it is. */
function asBody(file: string): string {
  const text = readFileSync(file, 'utf8');
  if (!file.endsWith('.yaml')) return text;
  try {
    return JSON.stringify(parseYaml(text, { version: '1.1', uniqueKeys: false }));
  } catch {
    return text;
  }
}

describe('the corpus has every class of bad input', () => {
  it('holds at least one case of each', () => {
    const names = cases.map((c) => c.file);
    for (const word of ['literal-dot', 'percent-2f', 'query', 'fragment', 'https', 'ttl-overflow', 'negative', 'dns', 'nul', 'hint', 'duplicate-selector', 'foreign-trust-domain', 'unclosed-quote', 'alias-bomb', 'huge-document', 'huge-template', 'deep-json', 'deep-yaml', 'many-keys', 'uppercase-name', 'nul-in-name']) {
      expect(names.some((n) => n.includes(word)), word).toBe(true);
    }
  });
});

describe('`validate` gives each case one line naming file, object, field and reason', () => {
  it('under the heap deploy/ sets, exiting 1, not crashing', { timeout: 300_000 }, async () => {
    const cli = spawnCli(['validate', '--trust-domain', 'example.org', CORPUS, generated], { env: { NODE_OPTIONS: HEAP } });
    expect(await exitCode(cli)).toBe(1);
    expectOneLinePerCase(cli.output().trim().split('\n'));
  });
});

describe('`plan` logs each case in one line naming file, object, field and reason', () => {
  it('under the heap deploy/ sets, finishing its plan, exiting 2 for the documents too large to read', { timeout: 300_000 }, async () => {
    writeFileSync(join(generated, 'config.cfg'), 'apiVersion: spire.spiffe.io/v1alpha1\nkind: ControllerManagerConfig\ntrustDomain: example.org\nclusterName: demo\nclusterDomain: cluster.local\nlogEncoding: json\n');
    writeFileSync(join(generated, 'entries.dump'), '{"entries": []}');
    const cli = spawnCli(['plan', '--config', join(generated, 'config.cfg'), '--manifests', CORPUS, generated, '--entries', join(generated, 'entries.dump'), '--output', 'json'], { env: { NODE_OPTIONS: HEAP } });
    expect(await exitCode(cli)).toBe(2);
    expect(cli.output()).toMatch(/"msg":"this plan is incomplete: 3 manifest documents were too large to read/);
    const logged = cli
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{"level"'))
      .map((l) => (JSON.parse(l) as { msg: string }).msg)
      .filter((m) => m.startsWith('/'));
    expectOneLinePerCase(logged);
  });
});

describe('the webhook answers each case with the object, field and reason, or why it cannot read it', () => {
  it('every case', { timeout: 300_000 }, async () => {
    for (const c of cases) {
      if (c.webhook) {
        const reply = await post(webhook.port, PATHS.csid, asBody(c.file), tls);
        expect(reply.status, c.file).toBe(c.webhook.status);
        const message: string = reply.json?.response?.status?.message ?? reply.body;
        expect(message.startsWith(c.webhook.message), `${c.file}: ${message}`).toBe(true);
        expect(message.trim().includes('\n'), c.file).toBe(false);
        continue;
      }
      const set = await loadManifests([c.file]);
      const [object, kind] = set.clusterSPIFFEIDs[0] ? [set.clusterSPIFFEIDs[0], 'ClusterSPIFFEID'] : [set.clusterStaticEntries[0], 'ClusterStaticEntry'];
      expect(object, c.file).toBeDefined();
      const path = kind === 'ClusterSPIFFEID' ? PATHS.csid : PATHS.cse;
      const reply = await post(webhook.port, path, JSON.stringify(review(kind, 'CREATE', object)), tls);
      expect(reply.json.response.allowed, c.file).toBe(false);
      expect(reply.json.response.status.message, c.file).toContain(c.expect.replace(`${kind}/`, `${kind} `));
    }
    expect(webhook.load).toEqual({ reviewing: 0, bytes: 0, waiting: 0 });
  });
});
