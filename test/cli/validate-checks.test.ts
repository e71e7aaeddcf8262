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
