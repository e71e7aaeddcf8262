/**
 * Keeps `clientConfig.caBundle` of every webhook in the configuration equal
 * to SPIRE's X.509 authorities, which sign the serving certificate.
 *
 * The write is a JSON patch (RFC 6902) with, per webhook that differs, a
 * `test` of `/webhooks/<i>/name` followed by an `add` of
 * `/webhooks/<i>/clientConfig/caBundle` (`add` sets a member whether or not it
 * exists; `replace` would fail on a fresh configuration, which has no
 * caBundle). Why not a merge patch of the whole `webhooks` list: a merge patch
 * replaces a list wholesale, so it would silently undo any change another
 * writer (helm, kubectl, another replica) made to any webhook between our GET
 * and our PATCH. The JSON patch touches only the caBundle fields, and the
 * `test` makes the API server refuse it (422) if the list was reordered or
 * shrunk meanwhile, so an index never lands on the wrong webhook; the next
 * check reads the configuration again and retries.
 */
import type { KubeConfig } from '../kube/connection.js';
import type { Logger } from 'pino';
import { kubeRequest } from '../kube/rest.js';
import type { SpireClient } from '../spire/index.js';
import { pemEncode } from './pem.js';
import { type ValidatingWebhookConfiguration, vwcPath } from './vwc.js';

type JsonPatchOp = { op: 'test' | 'add'; path: string; value: string };

/** The trust bundle as the API server wants it: PEM CERTIFICATE blocks in SPIRE's order. */
function authoritiesPem(bundle: { x509_authorities?: { asn1?: Uint8Array | Buffer | null }[] }): string {
  const certs = (bundle.x509_authorities ?? []).flatMap((a) => (a.asn1 && a.asn1.length > 0 ? [a.asn1] : []));
  return pemEncode('CERTIFICATE', certs);
}

export async function fetchAuthoritiesPem(spire: SpireClient): Promise<string> {
  const pem = authoritiesPem(await spire.getBundle());
  // An empty caBundle would make the API server trust nothing we serve; keep what is there.
  if (pem === '') throw new Error('SPIRE GetBundle returned no X.509 authorities');
  return pem;
}

/** The patch that makes every webhook's caBundle `pem`, or [] when all already match byte for byte. */
export function caBundlePatch(vwc: ValidatingWebhookConfiguration, pem: string): JsonPatchOp[] {
  const want = Buffer.from(pem, 'utf8');
  const ops: JsonPatchOp[] = [];
  (vwc.webhooks ?? []).forEach((w, i) => {
    // clientConfig is required by the API; a webhook without one has nothing to trust.
    if (!w.clientConfig) return;
    const have = Buffer.from(w.clientConfig.caBundle ?? '', 'base64');
    if (have.equals(want)) return;
    ops.push({ op: 'test', path: `/webhooks/${i}/name`, value: w.name });
    ops.push({ op: 'add', path: `/webhooks/${i}/clientConfig/caBundle`, value: want.toString('base64') });
  });
  return ops;
}

/** Patches the configuration when its caBundles differ from `pem`; returns whether it wrote. */
export async function syncCaBundle(kc: KubeConfig, vwc: ValidatingWebhookConfiguration, pem: string, log: Logger): Promise<boolean> {
  const ops = caBundlePatch(vwc, pem);
  if (ops.length === 0) return false;
  await kubeRequest(kc, 'PATCH', vwcPath(vwc.metadata.name), { body: ops, contentType: 'application/json-patch+json' });
  const webhooks = ops.filter((o) => o.op === 'test').map((o) => o.value);
  // Upstream's wording, so existing log searches and alerts still match.
  log.info({ name: vwc.metadata.name, webhooks }, 'Webhook configuration patched with CABundle');
  return true;
}
