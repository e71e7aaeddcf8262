import { describe, expect, it } from 'vitest';
import { splitDer, toPem } from '../../src/workloadapi/der.js';

/** A DER SEQUENCE of `length` content bytes, in the short or long length form. */
function sequence(length: number, fill: number): Buffer {
  const content = Buffer.alloc(length, fill);
  if (length < 0x80) return Buffer.concat([Buffer.from([0x30, length]), content]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.concat([Buffer.from([0x30, 0x80 | bytes.length, ...bytes]), content]);
}

describe('certificates written one after another, as the Workload API sends them', () => {
  it('splits short and long length forms back into the blocks written', () => {
    const blocks = [sequence(5, 1), sequence(200, 2), sequence(70_000, 3)];
    expect(splitDer(Buffer.concat(blocks))).toEqual(blocks);
    expect(splitDer(Buffer.alloc(0))).toEqual([]);
  });

  it('refuses bytes that are not whole SEQUENCEs, naming the byte', () => {
    expect(() => splitDer(Buffer.from([0x04, 0x00]))).toThrow('byte 0 is not the start of a DER certificate');
    expect(() => splitDer(Buffer.concat([sequence(3, 1), sequence(10, 2).subarray(0, 6)]))).toThrow('the DER certificate at byte 5 is cut short');
    expect(() => splitDer(Buffer.from([0x30, 0x85, 1, 2, 3, 4, 5]))).toThrow('the DER certificate at byte 0 has a bad length');
  });

  it('writes PEM in 64-character lines, one block after another', () => {
    const pem = toPem('CERTIFICATE', [Buffer.alloc(60, 0xff), Buffer.from([1])]);
    expect(pem).toBe(
      `-----BEGIN CERTIFICATE-----\n${'/'.repeat(64)}\n${'/'.repeat(16)}\n-----END CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\nAQ==\n-----END CERTIFICATE-----\n`,
    );
  });
});
