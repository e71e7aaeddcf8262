/**
 * Template data for the differential test: a few fixed objects for the
 * corpora, and random pods and nodes for the fuzzer. Everything is Kubernetes
 * JSON as the API server sends it (empty fields left out), so Go decodes the
 * same values our engine reads. Integers stay below 2^53 (see the documented
 * limits in docs/templates.md) and timestamps are valid RFC 3339.
 */
import type { TemplateData } from '../../../src/template/index.js';
import type { Rng } from './random.js';
import { parentIdData, podData } from '../fixtures.js';

type Json = Record<string, unknown>;

/** The data the corpora are rendered with: a pod's templates, then a parent ID's (no pod), then sparse objects. */
export const CORPUS_DATA: readonly (readonly [label: string, data: TemplateData])[] = [
  ['pod', podData()],
  ['parent ID (nil pod)', parentIdData({ ClusterDomain: '' })],
  [
    'sparse pod',
    {
      TrustDomain: 'td',
      ClusterName: '',
      ClusterDomain: '',
      PodMeta: { name: 'p', namespace: 'default', uid: 'u' },
      PodSpec: { containers: [{ name: 'c' }] },
      NodeMeta: { name: 'n' },
      NodeSpec: {},
    },
  ],
];

/** Label and annotation keys the template generator also uses, so lookups sometimes hit. */
export const MAP_KEYS = ['app', 'tier', 'version', 'app.kubernetes.io/name', 'spiffe.io/spiffe-id', 'Zone', 'team_1', 'x'];

/** Text that exercises escaping and Unicode: quotes, markup, controls, Unicode 16 code points Go 1.26 (Unicode 15) does not know. */
export const ODD_TEXT = [
  'a"b',
  "it's",
  '<x>&amp;',
  'tab\there',
  'line\nbreak',
  'bell\u0007',
  'del\u007f',
  'é',
  'naïve café',
  '日本語',
  '😀',
  '\u200b',
  '\ufeff',
  '\u00a0',
  '\u0378',
  '\u1c89',
  '\u{16d40}',
  '\u{1f8b0}',
  '\u2028',
  '%d%%',
  '\\back\\slash',
  '`tick`',
  '',
  ' ',
  'x=y',
  'ǅ',
  '\u0301',
];

const NAMES = ['web', 'api-0', 'checkout-6d4cf56db6-x8k2p', 'a', 'payments', 'kube-system', 'default', 'ns-1', 'x.y'];

function word(rng: Rng): string {
  return rng.chance(0.8) ? rng.pick(NAMES) : rng.pick(ODD_TEXT);
}

function stringMap(rng: Rng): Json | undefined {
  if (rng.chance(0.2)) return undefined;
  const out: Json = {};
  for (const key of rng.some(MAP_KEYS, 0.35)) out[key] = word(rng);
  if (rng.chance(0.2)) out[rng.pick(ODD_TEXT) || 'k'] = word(rng);
  return out;
}

/** An RFC 3339 timestamp; mostly as the API server writes them (UTC, whole seconds). */
export function timestamp(rng: Rng): string {
  if (rng.chance(0.05)) return '0001-01-01T00:00:00Z';
  const ms = rng.between(-2_000_000_000, 4_000_000_000) * 1000;
  const iso = new Date(ms).toISOString().replace('.000Z', 'Z');
  if (rng.chance(0.15)) return iso.replace('Z', `.${String(rng.between(1, 999_999_999)).padStart(9, '0')}Z`);
  if (rng.chance(0.1)) return iso.replace('Z', rng.pick(['+02:00', '-07:30', '+00:00']));
  return iso;
}

function optional<T>(rng: Rng, p: number, make: () => T): T | undefined {
  return rng.chance(p) ? make() : undefined;
}

/** Drops undefined values, as the API server omits empty fields. */
function compact(obj: Json): Json {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

function objectMeta(rng: Rng): Json {
  return compact({
    name: word(rng),
    generateName: optional(rng, 0.3, () => `${word(rng)}-`),
    namespace: optional(rng, 0.9, () => word(rng)),
    uid: optional(rng, 0.9, () => `${rng.int(1e8).toString(16)}-4c8e-9f2a-5d6e7f8a9b0c`),
    resourceVersion: optional(rng, 0.6, () => String(rng.int(1e6))),
    generation: optional(rng, 0.3, () => rng.between(0, 100)),
    creationTimestamp: optional(rng, 0.85, () => timestamp(rng)),
    deletionTimestamp: optional(rng, 0.15, () => timestamp(rng)),
    deletionGracePeriodSeconds: optional(rng, 0.15, () => rng.between(0, 60)),
    labels: stringMap(rng),
    annotations: stringMap(rng),
    ownerReferences: optional(rng, 0.4, () => [
      compact({
        apiVersion: 'apps/v1',
        kind: rng.pick(['ReplicaSet', 'StatefulSet', 'Job']),
        name: word(rng),
        uid: 'owner-uid',
        controller: optional(rng, 0.7, () => rng.chance(0.8)),
        blockOwnerDeletion: optional(rng, 0.5, () => true),
      }),
    ]),
    finalizers: optional(rng, 0.15, () => [word(rng)]),
  });
}

function container(rng: Rng): Json {
  return compact({
    name: word(rng),
    image: optional(rng, 0.9, () => `registry.example.com/${word(rng)}:1.${rng.int(10)}`),
    args: optional(rng, 0.2, () => [word(rng), word(rng)]),
    ports: optional(rng, 0.4, () => [compact({ name: optional(rng, 0.5, () => 'https'), containerPort: rng.between(1, 65535), protocol: 'TCP' })]),
    env: optional(rng, 0.3, () => [{ name: 'LOG_LEVEL', value: word(rng) }]),
    stdin: optional(rng, 0.1, () => true),
  });
}

function podSpec(rng: Rng): Json {
  return compact({
    containers: Array.from({ length: rng.between(1, 3) }, () => container(rng)),
    initContainers: optional(rng, 0.2, () => [container(rng)]),
    serviceAccountName: optional(rng, 0.8, () => word(rng)),
    serviceAccount: optional(rng, 0.3, () => word(rng)),
    nodeName: optional(rng, 0.8, () => word(rng)),
    restartPolicy: optional(rng, 0.7, () => rng.pick(['Always', 'Never', 'OnFailure'])),
    dnsPolicy: optional(rng, 0.5, () => 'ClusterFirst'),
    hostNetwork: optional(rng, 0.2, () => true),
    priority: optional(rng, 0.4, () => rng.weighted([[3, rng.between(-10, 10)], [1, 2_000_000_000]])),
    terminationGracePeriodSeconds: optional(rng, 0.5, () => rng.between(0, 30)),
    nodeSelector: optional(rng, 0.3, () => stringMap(rng) ?? {}),
    hostname: optional(rng, 0.2, () => word(rng)),
    subdomain: optional(rng, 0.2, () => word(rng)),
    automountServiceAccountToken: optional(rng, 0.3, () => rng.chance(0.5)),
    tolerations: optional(rng, 0.3, () => [
      compact({ key: word(rng), operator: 'Exists', effect: 'NoExecute', tolerationSeconds: optional(rng, 0.5, () => 300) }),
    ]),
  });
}

function nodeSpec(rng: Rng): Json {
  return compact({
    podCIDR: optional(rng, 0.7, () => '10.244.3.0/24'),
    podCIDRs: optional(rng, 0.6, () => ['10.244.3.0/24', 'fd00:10:244:3::/64']),
    providerID: optional(rng, 0.6, () => `aws:///${word(rng)}/i-0abc`),
    unschedulable: optional(rng, 0.1, () => true),
    taints: optional(rng, 0.3, () => [
      compact({ key: word(rng), value: optional(rng, 0.5, () => word(rng)), effect: 'NoSchedule', timeAdded: optional(rng, 0.3, () => timestamp(rng)) }),
    ]),
  });
}

/** Random data for a template of the given name: a parent ID template sees no pod, as upstream renders it. */
export function randomData(rng: Rng, parentId: boolean): TemplateData {
  return {
    TrustDomain: rng.pick(['example.org', 'td', 'x.y.z', '']),
    ClusterName: rng.pick(['demo', 'prod-eu', '']),
    ClusterDomain: rng.pick(['cluster.local', '']),
    PodMeta: parentId ? null : objectMeta(rng),
    PodSpec: parentId ? null : podSpec(rng),
    NodeMeta: rng.chance(0.97) ? objectMeta(rng) : null,
    NodeSpec: rng.chance(0.97) ? nodeSpec(rng) : null,
  };
}
