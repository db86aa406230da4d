/**
 * WE's deterministic pseudorandom generator (we-node utils/LcgRandom), which picks a CFT
 * block's validators when there are more candidates than `max-validators`.
 *
 * A linear congruential generator x' = (a·x + c) rem m with a = 1103515245, c = 12345,
 * m = 2^31 − 1 (Int.MaxValue), computed as WE computes it: in BigInt, with Java's
 * remainder (its sign follows the dividend, so a negative state stays negative), the
 * result narrowed to an Int (exact: |x'| < m). The first state is one step from the seed
 * bytes read as a signed big-endian two's-complement integer (Java's BigInteger(byte[])),
 * and every draw steps once more before it is returned.
 */
const A = 1103515245n;
const C = 12345n;
const M = 2147483647n;

/** Java's `new BigInteger(bytes)`: big-endian two's complement. */
export function signedBigEndian(bytes: Uint8Array): bigint {
  if (bytes.length === 0) throw new RangeError('Zero length BigInteger');
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return bytes[0]! >= 0x80 ? v - (1n << BigInt(8 * bytes.length)) : v;
}

const step = (x: bigint): bigint => (x * A + C) % M;

export class LcgRandom {
  private state: bigint;

  constructor(seed: Uint8Array) {
    this.state = step(signedBigEndian(seed));
  }

  /** The next state: an int in (−2^31 + 1, 2^31 − 1). */
  nextInt(): number {
    this.state = step(this.state);
    return Number(this.state);
  }

  /** WE's nextInt(n): the next state's magnitude, rem n. */
  nextIntBelow(n: number): number {
    return Math.abs(this.nextInt()) % n;
  }

  /** WE's shuffle: for n = length … 2, swap position n − 1 with nextInt(n). A new array. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let n = out.length; n >= 2; n--) {
      const k = this.nextIntBelow(n);
      const tmp = out[n - 1]!;
      out[n - 1] = out[k]!;
      out[k] = tmp;
    }
    return out;
  }
}
