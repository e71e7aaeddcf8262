import { x509 } from '../x509/index.js';

/**
 * PEM exactly as Go's encoding/pem writes it (64-character lines, every block
 * ending in "\n"), so the caBundle we write is byte-identical to the one
 * spire-controller-manager writes. Replicas of both during a migration then
 * agree instead of patching the ValidatingWebhookConfiguration back and
 * forth. The library's layout is Go's except that it leaves the last block
 * without its newline.
 */
export function pemEncode(type: string, ders: readonly (Uint8Array | ArrayBuffer)[]): string {
  return ders.length === 0 ? '' : `${x509.PemConverter.encode([...ders], type)}\n`;
}
