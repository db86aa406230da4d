/**
 * The GOST R 34.10-2012 256-bit curves Weft signs and verifies on, by crypto-gost-js's names:
 * their parameters (RFC 4357 §11.4 / the library's table) and the OID of their CryptoPro
 * parameter set. One table for the JavaScript arithmetic (gost.ts) and the native engine's
 * range checks and keys (gost-native.ts).
 */
import type { WeierstrassOpts } from '@noble/curves/abstract/weierstrass.js';

/** The GOST R 34.10-2012 (256) curves the library has, by its names. */
export type Gost256Curve = 'S-256-A' | 'S-256-B' | 'S-256-C';

export interface Gost256CurveParams extends WeierstrassOpts<bigint> {
  /** The CryptoPro parameter set naming the curve in a key's algorithm identifier. */
  readonly paramSet: string;
}

export const GOST_256_CURVES: Readonly<Record<Gost256Curve, Gost256CurveParams>> = {
  'S-256-A': {
    paramSet: '1.2.643.2.2.35.1',
    p: 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffd97n,
    a: 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffd94n,
    b: 166n,
    n: 0xffffffffffffffffffffffffffffffff6c611070995ad10045841b09b761b893n,
    h: 1n,
    Gx: 1n,
    Gy: 0x8d91e471e0989cda27df505a453f2b7635294f2ddf23e3b122acc99c9e9f1e14n,
  },
  'S-256-B': {
    paramSet: '1.2.643.2.2.35.2',
    p: 0x8000000000000000000000000000000000000000000000000000000000000c99n,
    a: 0x8000000000000000000000000000000000000000000000000000000000000c96n,
    b: 0x3e1af419a269a5f866a7d3c25c3df80ae979259373ff2b182f49d4ce7e1bbc8bn,
    n: 0x800000000000000000000000000000015f700cfff1a624e5e497161bcc8a198fn,
    h: 1n,
    Gx: 1n,
    Gy: 0x3fa8124359f96680b83d1c3eb2c070e5c545c9858d03ecfb744bf8d717717efcn,
  },
  'S-256-C': {
    paramSet: '1.2.643.2.2.35.3',
    p: 0x9b9f605f5a858107ab1ec85e6b41c8aacf846e86789051d37998f7b9022d759bn,
    a: 0x9b9f605f5a858107ab1ec85e6b41c8aacf846e86789051d37998f7b9022d7598n,
    b: 32858n,
    n: 0x9b9f605f5a858107ab1ec85e6b41c8aa582ca3511eddfb74f02f3a6598980bb9n,
    h: 1n,
    Gx: 0n,
    Gy: 0x41ece55743711a8c3cbf3783cd08c0ee4d4dc440d4641a8f366e550dfdb3bb67n,
  },
};
