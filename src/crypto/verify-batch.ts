/**
 * The message between the verifier pool and its workers (verify-pool.ts, verify-worker.ts):
 * a batch of (public key, message, signature) packed into one buffer the sender transfers,
 * so a batch costs one copy of its bytes and no per-item cloning.
 *
 * Layout per item: u16 key length, u16 signature length, u32 message length (little
 * endian), then the key, the signature and the message.
 */
/** One signature to check. */
export interface SignatureCheck {
  readonly publicKey: Uint8Array;
  readonly message: Uint8Array;
  readonly signature: Uint8Array;
}

const HEADER = 8;

/**
 * Beside the packed batch travels one shared claim word per item (an Int32Array over a
 * SharedArrayBuffer): the worker verifies an item only if it turns its word from 0 to
 * CLAIMED_BY_WORKER first; the pool's own thread takes items by turning theirs to
 * CLAIMED_HERE (verify-pool.ts, scheduleSteal).
 */
export const CLAIMED_BY_WORKER = 1;
export const CLAIMED_HERE = 2;
/** The worker's answer (1 valid, 0 invalid) for an item the pool's own thread claimed first. */
export const VERDICT_CLAIMED_ELSEWHERE = 2;

export function packVerifyBatch(items: readonly SignatureCheck[]): ArrayBuffer {
  let size = 0;
  for (const it of items) size += HEADER + it.publicKey.length + it.signature.length + it.message.length;
  const buffer = new ArrayBuffer(size);
  const bytes = new Uint8Array(buffer);
  const view = new DataView(buffer);
  let o = 0;
  for (const it of items) {
    view.setUint16(o, it.publicKey.length, true);
    view.setUint16(o + 2, it.signature.length, true);
    view.setUint32(o + 4, it.message.length, true);
    o += HEADER;
    bytes.set(it.publicKey, o);
    o += it.publicKey.length;
    bytes.set(it.signature, o);
    o += it.signature.length;
    bytes.set(it.message, o);
    o += it.message.length;
  }
  return buffer;
}

/** Calls `each` with views of every item of a packed batch, in order. */
export function forEachPackedCheck(buffer: ArrayBuffer, each: (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => void): void {
  const bytes = new Uint8Array(buffer);
  const view = new DataView(buffer);
  let o = 0;
  while (o < bytes.length) {
    const pkLength = view.getUint16(o, true);
    const sigLength = view.getUint16(o + 2, true);
    const msgLength = view.getUint32(o + 4, true);
    o += HEADER;
    const publicKey = bytes.subarray(o, (o += pkLength));
    const signature = bytes.subarray(o, (o += sigLength));
    const message = bytes.subarray(o, (o += msgLength));
    each(publicKey, message, signature);
  }
}

/** How many items a packed batch holds. */
export function packedCheckCount(buffer: ArrayBuffer): number {
  let n = 0;
  forEachPackedCheck(buffer, () => n++);
  return n;
}
