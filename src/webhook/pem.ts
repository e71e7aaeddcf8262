/**
 * PEM exactly as Go's encoding/pem writes it (64-character lines, "\n"), so
 * the caBundle we write is byte-identical to the one spire-controller-manager
 * writes. Replicas of both during a migration then agree instead of patching
 * the ValidatingWebhookConfiguration back and forth.
 */
export function pemEncode(type: string, der: Uint8Array | ArrayBuffer): string {
  const b64 = Buffer.from(der instanceof ArrayBuffer ? new Uint8Array(der) : der).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.join('\n')}\n-----END ${type}-----\n`;
}

/** The PEM blocks of one type, in order, each re-terminated with "\n". */
export function pemBlocks(text: string, type: string): string[] {
  const re = new RegExp(`-----BEGIN ${type}-----[\\s\\S]*?-----END ${type}-----`, 'g');
  return (text.match(re) ?? []).map((b) => `${b}\n`);
}
