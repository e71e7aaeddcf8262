/**
 * Splits DER certificates written one after another (the Workload API's
 * form for a chain and for a bundle) into one buffer each. Each certificate
 * is an ASN.1 SEQUENCE, so its length is in its header. Throws on bytes that
 * are not whole SEQUENCEs.
 */
export function splitDer(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (bytes[at] !== 0x30) throw new Error(`byte ${at} is not the start of a DER certificate`);
    if (at + 2 > bytes.length) throw new Error(`the DER certificate at byte ${at} is cut short`);
    const first = bytes[at + 1] as number;
    let length: number;
    let header: number;
    if (first < 0x80) {
      length = first;
      header = 2;
    } else {
      // Long form: the low bits say how many length bytes follow (a certificate needs at most 4).
      const count = first & 0x7f;
      if (count === 0 || count > 4 || at + 2 + count > bytes.length) throw new Error(`the DER certificate at byte ${at} has a bad length`);
      length = 0;
      for (let i = 0; i < count; i++) length = length * 256 + (bytes[at + 2 + i] as number);
      header = 2 + count;
    }
    const end = at + header + length;
    if (end > bytes.length) throw new Error(`the DER certificate at byte ${at} is cut short`);
    out.push(bytes.subarray(at, end));
    at = end;
  }
  return out;
}

/** PEM text of DER blocks under one label, e.g. CERTIFICATE or PRIVATE KEY. */
export function toPem(label: string, blocks: readonly Buffer[]): string {
  return blocks
    .map((der) => {
      const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
      return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
    })
    .join('');
}
