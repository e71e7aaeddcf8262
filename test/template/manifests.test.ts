import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { TemplateExecError, TemplateParseError, compileTemplate } from '../../src/template/index.js';
import { NODE_META, compileError, parentIdData, podData, render, renderError } from './fixtures.js';

const DEFAULT_PARENT_ID_TEMPLATE = 'spiffe://{{ .TrustDomain }}/spire/agent/k8s_psat/{{ .ClusterName }}/{{ .NodeMeta.UID }}';

/** Templates exactly as they appear in a manifest's YAML, decoded the way the API server decodes them. */
function fromYaml(yaml: string): string {
  const doc = parseYaml(yaml) as { spec: { spiffeIDTemplate: string } };
  return doc.spec.spiffeIDTemplate;
}

describe('templates from real ClusterSPIFFEID manifests render exactly as spire-controller-manager renders them', () => {
  it.each([
    [
      'service-account identity (helm chart default, migration guide)',
      'spiffe://{{ .TrustDomain }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}',
      'spiffe://example.org/ns/payments/sa/checkout-sa',
    ],
    [
      'label with dots and slashes read with index',
      'spiffe://{{ .TrustDomain }}/{{ index .PodMeta.Labels "spiffe.io/spiffe-id" }}',
      'spiffe://example.org/payments-checkout',
    ],
    [
      'cluster name and app label',
      'spiffe://{{ .TrustDomain }}/cluster/{{ .ClusterName }}/ns/{{ .PodMeta.Namespace }}/deploy/{{ index .PodMeta.Labels "app" }}',
      'spiffe://example.org/cluster/demo-cluster/ns/payments/deploy/checkout',
    ],
    [
      'label read as a field (identifier-safe key)',
      'spiffe://example.org/zone/{{ .PodMeta.Labels.zone }}/ns/{{ .PodMeta.Namespace }}/sa/{{ .PodSpec.ServiceAccountName }}',
      'spiffe://example.org/zone/eu-west-1a/ns/payments/sa/checkout-sa',
    ],
    [
      'optional annotation appended with with/end',
      'spiffe://{{ .TrustDomain }}/openshell/sandbox/{{ .PodMeta.Namespace }}.{{ .PodMeta.Name }}{{ with (index .PodMeta.Annotations "openshell.ai/sandbox-id") }}.{{ . }}{{ end }}',
      'spiffe://example.org/openshell/sandbox/payments.checkout-6d4cf56db6-x8k2p.sbx-314',
    ],
    [
      'annotation the pod does not have',
      'spiffe://{{ .TrustDomain }}/openshell/sandbox/{{ index .PodMeta.Annotations "openshell.io/sandbox-id" }}',
      'spiffe://example.org/openshell/sandbox/',
    ],
    [
      'Konflux task identity with a literal trust domain',
      'spiffe://konflux-ci.dev/trusted/cluster-01/{{ .PodSpec.ServiceAccountName }}/{{ index .PodMeta.Labels "tekton.dev/task" }}',
      'spiffe://konflux-ci.dev/trusted/cluster-01/checkout-sa/build-image',
    ],
    [
      'SPIKE keeper (helm chart)',
      'spiffe://{{ .TrustDomain }}/spike/keeper/{{ .PodMeta.Name }}',
      'spiffe://example.org/spike/keeper/checkout-6d4cf56db6-x8k2p',
    ],
    ['template-free literal', 'spiffe://cluster2.demo/greeter-client', 'spiffe://cluster2.demo/greeter-client'],
    ['no spaces inside the braces', 'spiffe://{{.TrustDomain}}/ns/{{.PodMeta.Namespace}}', 'spiffe://example.org/ns/payments'],
    [
      'action split across lines',
      'spiffe://{{ .TrustDomain }}/app/{{\n  index .PodMeta.Labels "app.kubernetes.io/name" }}',
      'spiffe://example.org/app/checkout-api',
    ],
  ])('SPIFFE ID: %s', (_, template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it.each([
    ['{{ .PodMeta.Name }}.{{ .PodMeta.Namespace }}.svc.cluster.local', 'checkout-6d4cf56db6-x8k2p.payments.svc.cluster.local'],
    ['{{ .PodMeta.Labels.app }}.{{ .PodMeta.Namespace }}.svc.cluster.local', 'checkout.payments.svc.cluster.local'],
    ['{{ .PodMeta.Name }}.{{ .PodMeta.Namespace }}.{{ .ClusterDomain }}', 'checkout-6d4cf56db6-x8k2p.payments.cluster.local'],
    [
      '{{ index .PodMeta.Labels "app.kubernetes.io/name" }}.{{ .PodMeta.Namespace }}.svc.cluster.local',
      'checkout-api.payments.svc.cluster.local',
    ],
    ['oidc-discovery.{{ .TrustDomain }}', 'oidc-discovery.example.org'],
    ['spiffe-step-ssh-fetchca.{{ .TrustDomain }}', 'spiffe-step-ssh-fetchca.example.org'],
    ['my-custom-dns-name', 'my-custom-dns-name'],
  ])('DNS name template %j renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it.each([
    ['k8s:ns:{{ .PodMeta.Namespace }}', 'k8s:ns:payments'],
    ['k8s:sa:{{ .PodSpec.ServiceAccountName }}', 'k8s:sa:checkout-sa'],
    ['k8s:pod-label:app:{{ index .PodMeta.Labels "app" }}', 'k8s:pod-label:app:checkout'],
    ['k8s:pod-name:{{ .PodMeta.Name }}', 'k8s:pod-name:checkout-6d4cf56db6-x8k2p'],
    ['k8s:container-name:spire-agent', 'k8s:container-name:spire-agent'],
    ['unix:uid:33', 'unix:uid:33'],
  ])('workload selector template %j renders %j', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it('renders a missing label read as a field as <no value>, which then fails SPIFFE ID validation downstream', () => {
    const data = podData({ PodMeta: { ...podData().PodMeta, labels: { app: 'checkout' } } });
    expect(render('spiffe://example.org/zone/{{ .PodMeta.Labels.zone }}/ns/{{ .PodMeta.Namespace }}', data)).toBe(
      'spiffe://example.org/zone/<no value>/ns/payments',
    );
  });

  it('appends nothing when the optional annotation is absent', () => {
    const data = podData({ PodMeta: { ...podData().PodMeta, annotations: {} } });
    expect(
      render(
        'spiffe://{{ .TrustDomain }}/openshell/sandbox/{{ .PodMeta.Namespace }}.{{ .PodMeta.Name }}{{ with (index .PodMeta.Annotations "openshell.ai/sandbox-id") }}.{{ . }}{{ end }}',
        data,
      ),
    ).toBe('spiffe://example.org/openshell/sandbox/payments.checkout-6d4cf56db6-x8k2p');
  });
});

describe('templates arrive through YAML with their quoting already decoded', () => {
  it('decodes escaped quotes inside a double-quoted YAML string', () => {
    const template = fromYaml(String.raw`
spec:
  spiffeIDTemplate: "spiffe://{{ .TrustDomain }}/agent/{{ index .PodMeta.Labels \"assayd.dev/agent-namespace\" }}/{{ index .PodMeta.Labels \"assayd.dev/agent\" }}"
`);
    expect(template).toBe(
      'spiffe://{{ .TrustDomain }}/agent/{{ index .PodMeta.Labels "assayd.dev/agent-namespace" }}/{{ index .PodMeta.Labels "assayd.dev/agent" }}',
    );
    expect(render(template)).toBe('spiffe://example.org/agent/agents/scanner');
  });

  it('reads single-quoted YAML with embedded double quotes', () => {
    const template = fromYaml(`
spec:
  spiffeIDTemplate: 'spiffe://{{ .TrustDomain }}/{{ index .PodMeta.Labels "spiffe.io/spiffe-id" }}'
`);
    expect(render(template)).toBe('spiffe://example.org/payments-checkout');
  });

  it('folds a >- scalar that splits the action after {{ into a single space', () => {
    const template = fromYaml(`
spec:
  spiffeIDTemplate: >-
    spiffe://{{ .TrustDomain }}/app/{{
    index .PodMeta.Labels "app.kubernetes.io/name" }}
`);
    expect(template).toBe('spiffe://{{ .TrustDomain }}/app/{{ index .PodMeta.Labels "app.kubernetes.io/name" }}');
    expect(render(template)).toBe('spiffe://example.org/app/checkout-api');
  });

  it('keeps the newline of a literal | scalar inside the action, which Go accepts as a space', () => {
    const template = fromYaml(`
spec:
  spiffeIDTemplate: |-
    spiffe://{{ .TrustDomain }}/app/{{
      index .PodMeta.Labels "app.kubernetes.io/name" }}
`);
    expect(template).toContain('{{\n  index');
    expect(render(template)).toBe('spiffe://example.org/app/checkout-api');
  });
});

describe('parent ID templates see only the node, as spire-controller-manager renders them before the pod is set', () => {
  it('renders the default parent ID template', () => {
    expect(render(DEFAULT_PARENT_ID_TEMPLATE, parentIdData())).toBe(
      'spiffe://example.org/spire/agent/k8s_psat/demo-cluster/e4d9c2b1-5a6f-4e3d-8c7b-9a0f1e2d3c4b',
    );
  });

  it('renders the spire-nested chart variant without spire/agent', () => {
    expect(render('spiffe://{{ .TrustDomain }}/k8s_psat/{{ .ClusterName }}/{{ .NodeMeta.UID }}', parentIdData())).toBe(
      'spiffe://example.org/k8s_psat/demo-cluster/e4d9c2b1-5a6f-4e3d-8c7b-9a0f1e2d3c4b',
    );
  });

  it('renders the TPM template, an absent second hash contributing nothing', () => {
    const template =
      'spiffe://{{ .TrustDomain }}/spire/agent/tpm/{{ index .NodeMeta.Labels "node-restriction.kubernetes.io/tpm-pubhash" }}{{ index .NodeMeta.Labels "node-restriction.kubernetes.io/tpm-pubhash2" }}';
    expect(render(template, parentIdData())).toBe('spiffe://example.org/spire/agent/tpm/9f86d081884c7d65');
  });

  it('takes the if branch or the else branch of the different-nodes TPM template by node label', () => {
    // Quoted verbatim from the helm chart example, including the repeated spire/agent/ in the else branch.
    const template =
      'spiffe://{{ .TrustDomain }}/spire/agent/{{if index .NodeMeta.Labels "node-restriction.kubernetes.io/tpm-pubhash"}}tpm/{{ index .NodeMeta.Labels "node-restriction.kubernetes.io/tpm-pubhash" }}{{ index .NodeMeta.Labels "node-restriction.kubernetes.io/tpm-pubhash2" }}{{ else }}spire/agent/k8s_psat/{{ .ClusterName }}/{{ .NodeMeta.UID }}{{ end }}';
    expect(render(template, parentIdData())).toBe('spiffe://example.org/spire/agent/tpm/9f86d081884c7d65');
    const plainNode = { ...NODE_META, labels: { 'kubernetes.io/hostname': 'ip-10-0-1-23' } };
    expect(render(template, parentIdData({ NodeMeta: plainNode }))).toBe(
      'spiffe://example.org/spire/agent/spire/agent/k8s_psat/demo-cluster/e4d9c2b1-5a6f-4e3d-8c7b-9a0f1e2d3c4b',
    );
  });

  it('fails clearly, naming the nil pointer, when a parent ID template reads the pod', () => {
    const template = 'spiffe://{{ .TrustDomain }}/spire/agent/k8s_psat/{{ .ClusterName }}/{{ .PodMeta.Name }}';
    const err = renderError(template, parentIdData());
    expect(err).toBeInstanceOf(TemplateExecError);
    const e = err as TemplateExecError;
    expect(e.reason).toBe('nil pointer evaluating *v1.ObjectMeta.Name');
    expect(e.context).toBe('.PodMeta.Name');
    // Go reports the byte offset of a chained field's second segment.
    expect(e.message).toBe(
      `template: 1:${template.indexOf('.Name')}: executing at <.PodMeta.Name>: nil pointer evaluating *v1.ObjectMeta.Name`,
    );
  });
});

describe('constructs seen in blog posts that spire-controller-manager rejects are rejected the same way', () => {
  it.each([
    ['{{ .PodMeta.Labels.tentacular.io/release }}', "bad character U+002F '/'"],
    ['{{ .PodMeta.Labels.vm-name }}', "bad character U+002D '-'"],
    ['{{ .PodMeta.Labels.device-id }}', "bad character U+002D '-'"],
    ['{{ .PodMeta.OwnerReferences[0].Name }}', "bad character U+005B '['"],
    ['{{ .PodMeta.Labels.cluster | default "primary" }}', 'function "default" not defined'],
  ])('%s does not parse: %s', (template, reason) => {
    const err = compileError(template);
    expect(err).toBeInstanceOf(TemplateParseError);
    expect((err as TemplateParseError).reason).toBe(reason);
  });

  it.each([
    ['{{ .Pod.Namespace }}', "can't evaluate field Pod in type *spireentry.templateData"],
    ['{{ .Pod.ServiceAccount }}', "can't evaluate field Pod in type *spireentry.templateData"],
    ['{{ .VM.Name }}', "can't evaluate field VM in type *spireentry.templateData"],
  ])('%s parses but fails to render: %s', (template, reason) => {
    expect(() => compileTemplate(template)).not.toThrow();
    const err = renderError(template);
    expect(err).toBeInstanceOf(TemplateExecError);
    expect((err as TemplateExecError).reason).toBe(reason);
  });

  it('accepts every valid manifest template at admission', () => {
    expect(compileTemplate(DEFAULT_PARENT_ID_TEMPLATE).source).toBe(DEFAULT_PARENT_ID_TEMPLATE);
  });
});
