/**
 * `validate` and the admission webhook refuse the same objects for the same
 * reasons: the manifests a CI job passes with `validate --trust-domain` are
 * the ones `kubectl apply` gets through the webhook.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCode, spawnCli } from '../support/cli.js';
import { PATHS, post, review, servingWebhook, TD } from '../webhook/helpers.js';

const objects = [
  { kind: 'ClusterSPIFFEID', path: PATHS.csid, metadata: { name: 'fine' }, spec: { spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}' } },
  { kind: 'ClusterSPIFFEID', path: PATHS.csid, metadata: { name: 'other-cluster' }, spec: { spiffeIDTemplate: 'spiffe://cluster2.demo/greeter-client', ttl: '1 hour' } },
  { kind: 'ClusterStaticEntry', path: PATHS.cse, metadata: { name: 'words' }, spec: { spiffeID: '/static', parentID: '/spire/server', selectors: ['unix:uid:0'], x509SVIDTTL: '2 hours' } },
  { kind: 'ClusterFederatedTrustDomain', path: PATHS.cftd, metadata: { name: 'self' }, spec: { trustDomain: TD, bundleEndpointURL: 'https://spire.example.org:8443', bundleEndpointProfile: { type: 'https_web' } } },
];

let serving: Awaited<ReturnType<typeof servingWebhook>>;
let dir: string;
let file: string;

beforeAll(async () => {
  serving = await servingWebhook();
  dir = mkdtempSync(join(tmpdir(), 'validate-checks-'));
  file = join(dir, 'objects.json');
  // JSON is YAML; one List holds every object, as `kubectl get -o json` prints them.
  const items = objects.map(({ path: _path, ...o }) => ({ apiVersion: 'spire.spiffe.io/v1alpha1', ...o }));
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
});

afterAll(async () => {
  await serving?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `field: reason` per problem the webhook names for the object; [] when admitted. */
async function webhookReasons(o: (typeof objects)[number]): Promise<string[]> {
  const { path, ...object } = o;
  const reply = await post(serving.webhook.port, path, JSON.stringify(review(o.kind, 'CREATE', { apiVersion: 'spire.spiffe.io/v1alpha1', ...object })), serving.tls);
  const response = reply.json.response;
  if (response.allowed) return [];
  const prefix = `${o.kind} ${o.metadata.name}: `;
  const parts = (response.status.message as string).split('; ');
  for (const p of parts) expect(p.startsWith(prefix)).toBe(true);
  return parts.map((p) => p.slice(prefix.length));
}

/** `field: reason` per line `validate` prints for the object. */
function validateReasons(output: string, o: (typeof objects)[number]): string[] {
  const prefix = `${file}: ${o.kind}/${o.metadata.name}: `;
  return output
    .split('\n')
    .filter((l) => l.startsWith(prefix))
    .map((l) => l.slice(prefix.length));
}

describe('`validate --trust-domain` refuses what the webhook refuses, with the same reasons', () => {
  it('a SPIFFE ID template fixed to another trust domain, a TTL in words, and a ClusterFederatedTrustDomain for our own trust domain', async () => {
    const cli = spawnCli(['validate', '--trust-domain', TD, file]);
    expect(await exitCode(cli)).toBe(1);
    const reasons = await Promise.all(objects.map(async (o) => ({ name: o.metadata.name, webhook: await webhookReasons(o), validate: validateReasons(cli.output(), o) })));
    expect(reasons).toEqual([
      { name: 'fine', webhook: [], validate: [] },
      {
        name: 'other-cluster',
        webhook: ['spec.spiffeIDTemplate: trust domain "cluster2.demo" is not the configured trust domain "example.org"', 'spec.ttl: time: unknown unit " hour" in duration "1 hour"'],
        validate: ['spec.spiffeIDTemplate: trust domain "cluster2.demo" is not the configured trust domain "example.org"', 'spec.ttl: time: unknown unit " hour" in duration "1 hour"'],
      },
      { name: 'words', webhook: ['spec.x509SVIDTTL: time: unknown unit " hours" in duration "2 hours"'], validate: ['spec.x509SVIDTTL: time: unknown unit " hours" in duration "2 hours"'] },
      { name: 'self', webhook: [`spec.trustDomain: "${TD}" is the SPIRE server's own trust domain`], validate: [`spec.trustDomain: "${TD}" is the SPIRE server's own trust domain`] },
    ]);
    expect(cli.output().trim().split('\n')).toHaveLength(4);
  });

  it('takes the trust domain from --config as well', async () => {
    const config = join(dir, 'config.yaml');
    writeFileSync(config, `apiVersion: spire.spiffe.io/v1alpha1\nkind: ControllerManagerConfig\ntrustDomain: ${TD}\nclusterName: c\n`);
    const cli = spawnCli(['validate', '--config', config, file]);
    expect(await exitCode(cli)).toBe(1);
    expect(validateReasons(cli.output(), objects[3]!)).toEqual([`spec.trustDomain: "${TD}" is the SPIRE server's own trust domain`]);
  });

  it('without a trust domain, the checks that need one are left out: it is not known', async () => {
    const cli = spawnCli(['validate', file]);
    expect(await exitCode(cli)).toBe(1);
    expect(cli.output().trim().split('\n')).toEqual([
      `${file}: ClusterSPIFFEID/other-cluster: spec.ttl: time: unknown unit " hour" in duration "1 hour"`,
      `${file}: ClusterStaticEntry/words: spec.x509SVIDTTL: time: unknown unit " hours" in duration "2 hours"`,
    ]);
  });
});

describe('a metadata.name the API server refuses: `validate` and the webhook both say so, naming the object, the field and the reason', () => {
  const RULE =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  const long = 'x'.repeat(254);
  const staticSpec = { spiffeID: '/static', parentID: '/spire/server', selectors: ['unix:uid:0'] };
  const named = [
    { kind: 'ClusterSPIFFEID', path: PATHS.csid, name: 'Greeter', shown: 'Greeter', spec: objects[0]!.spec, reason: `Invalid value: "Greeter": ${RULE}` },
    { kind: 'ClusterStaticEntry', path: PATHS.cse, name: 'gate\u0000way', shown: '"gate\\u0000way"', spec: staticSpec, reason: `Invalid value: "gate\\u0000way": ${RULE}` },
    {
      kind: 'ClusterFederatedTrustDomain',
      path: PATHS.cftd,
      name: long,
      shown: long,
      spec: { trustDomain: 'partner.test', bundleEndpointURL: 'https://partner.test:8443', bundleEndpointProfile: { type: 'https_web' } },
      reason: `Invalid value: "${long}": must be no more than 253 bytes`,
    },
  ];

  it('uppercase, a NUL byte, over 253 bytes; an object without a name (named after its file) is not reported', async () => {
    const path = join(dir, 'names.json');
    const items = [
      ...named.map((o) => ({ apiVersion: 'spire.spiffe.io/v1alpha1', kind: o.kind, metadata: { name: o.name }, spec: o.spec })),
      { apiVersion: 'spire.spiffe.io/v1alpha1', kind: 'ClusterStaticEntry', spec: { ...staticSpec, spiffeID: '/unnamed' } },
    ];
    writeFileSync(path, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    const cli = spawnCli(['validate', path]);
    expect(await exitCode(cli)).toBe(1);
    // One line each (the NUL shown escaped), and none for the object named after its file.
    expect(cli.output().trim().split('\n')).toEqual(named.map((o) => `${path}: ${o.kind}/${o.shown}: metadata.name: ${o.reason}`));

    for (const o of named) {
      const object = { apiVersion: 'spire.spiffe.io/v1alpha1', kind: o.kind, metadata: { name: o.name }, spec: o.spec };
      const reply = await post(serving.webhook.port, o.path, JSON.stringify(review(o.kind, 'CREATE', object)), serving.tls);
      expect(reply.json.response.allowed, o.kind).toBe(false);
      expect(reply.json.response.status.message).toBe(`${o.kind} ${o.shown}: metadata.name: ${o.reason}`);
    }
  });
});
