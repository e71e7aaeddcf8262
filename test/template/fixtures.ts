import { compileTemplate } from '../../src/template/index.js';
import type { TemplateData } from '../../src/template/index.js';

/** metadata of a Deployment's pod, as the API server returns it. */
export const POD_META = {
  name: 'checkout-6d4cf56db6-x8k2p',
  generateName: 'checkout-6d4cf56db6-',
  namespace: 'payments',
  uid: '7f3c9a2e-1b4d-4c8e-9f2a-5d6e7f8a9b0c',
  resourceVersion: '48213',
  creationTimestamp: '2024-05-14T09:26:53Z',
  labels: {
    app: 'checkout',
    'app.kubernetes.io/name': 'checkout-api',
    'pod-template-hash': '6d4cf56db6',
    'spiffe.io/spiffe-id': 'payments-checkout',
    zone: 'eu-west-1a',
    'tekton.dev/task': 'build-image',
    'assayd.dev/agent-namespace': 'agents',
    'assayd.dev/agent': 'scanner',
    Tier: 'frontend',
  },
  annotations: {
    'openshell.ai/sandbox-id': 'sbx-314',
    'kubectl.kubernetes.io/restartedAt': '2024-05-14T09:26:00Z',
    quirky: `a=b'c"<x>&`,
  },
  ownerReferences: [
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: 'checkout-6d4cf56db6',
      uid: '0c1d2e3f-4a5b-6c7d-8e9f-a0b1c2d3e4f5',
      controller: true,
      blockOwnerDeletion: true,
    },
  ],
};

export const POD_SPEC = {
  serviceAccountName: 'checkout-sa',
  serviceAccount: 'checkout-sa-legacy',
  nodeName: 'ip-10-0-1-23.eu-west-1.compute.internal',
  restartPolicy: 'Always',
  dnsPolicy: 'ClusterFirst',
  schedulerName: 'default-scheduler',
  terminationGracePeriodSeconds: 30,
  enableServiceLinks: true,
  priority: 0,
  hostname: 'checkout-0',
  subdomain: 'checkout-headless',
  containers: [
    {
      name: 'app',
      image: 'registry.example.com/payments/checkout:1.4.2',
      ports: [{ name: 'https', containerPort: 8443, protocol: 'TCP' }],
      env: [{ name: 'LOG_LEVEL', value: 'info' }],
    },
    { name: 'envoy', image: 'envoyproxy/envoy:v1.30.1' },
  ],
  tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
};

export const NODE_META = {
  name: 'ip-10-0-1-23.eu-west-1.compute.internal',
  uid: 'e4d9c2b1-5a6f-4e3d-8c7b-9a0f1e2d3c4b',
  creationTimestamp: '2024-01-02T03:04:05Z',
  labels: {
    'kubernetes.io/hostname': 'ip-10-0-1-23',
    'topology.kubernetes.io/zone': 'eu-west-1a',
    'node-restriction.kubernetes.io/tpm-pubhash': '9f86d081884c7d65',
  },
};

export const NODE_SPEC = {
  podCIDR: '10.244.3.0/24',
  podCIDRs: ['10.244.3.0/24', 'fd00:10:244:3::/64'],
  providerID: 'aws:///eu-west-1a/i-0abc123def4567890',
  taints: [{ key: 'dedicated', value: 'payments', effect: 'NoSchedule' }],
};

/** What spire-controller-manager passes when rendering a pod's SPIFFE ID, DNS names and selectors. */
export function podData(overrides: Partial<TemplateData> = {}): TemplateData {
  return {
    TrustDomain: 'example.org',
    ClusterName: 'demo-cluster',
    ClusterDomain: 'cluster.local',
    PodMeta: POD_META,
    PodSpec: POD_SPEC,
    NodeMeta: NODE_META,
    NodeSpec: NODE_SPEC,
    ...overrides,
  };
}

/** What spire-controller-manager passes when rendering a parent ID: no pod yet. */
export function parentIdData(overrides: Partial<TemplateData> = {}): TemplateData {
  return podData({ PodMeta: null, PodSpec: null, ...overrides });
}

export function render(source: string, data: TemplateData = podData()): string {
  return compileTemplate(source).render(data);
}

/** The error a render throws, for assertions on its fields. */
export function renderError(source: string, data: TemplateData = podData()): unknown {
  try {
    compileTemplate(source).render(data);
  } catch (err) {
    return err;
  }
  throw new Error(`expected ${JSON.stringify(source)} to fail`);
}

/** The error compiling throws. */
export function compileError(source: string): unknown {
  try {
    compileTemplate(source);
  } catch (err) {
    return err;
  }
  throw new Error(`expected ${JSON.stringify(source)} not to parse`);
}
