// @peculiar/x509 resolves its ASN.1 codecs through tsyringe, which needs the
// Reflect metadata polyfill loaded before it; importing X.509 only through
// this module guarantees that order everywhere.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as typeof globalThis.crypto);

export { x509 };
export const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
