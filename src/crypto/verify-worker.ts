/**
 * A signature-verification thread (see verify-pool.ts): receives packed batches of
 * (publicKey, message, signature) (verify-batch.ts) with one shared claim word per item, and
 * answers one byte per item: 1 for valid, 0 for invalid, VERDICT_CLAIMED_ELSEWHERE for an item
 * the pool's own thread claimed first.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { CryptoType } from './suite.js';
import { createCryptoSuite } from './create-suite.js';
import { CLAIMED_BY_WORKER, forEachPackedCheck, packedCheckCount, VERDICT_CLAIMED_ELSEWHERE } from './verify-batch.js';

const port = parentPort;
if (port === null) throw new Error('verify-worker runs as a worker thread');
const suite = await createCryptoSuite((workerData as { type: CryptoType }).type);
port.on('message', ({ packed, claims }: { packed: ArrayBuffer; claims: Int32Array }) => {
  const results = new Uint8Array(packedCheckCount(packed));
  let i = 0;
  forEachPackedCheck(packed, (publicKey, message, signature) => {
    // An item the pool's own thread claimed first is its to verify (verify-pool.ts, scheduleSteal).
    results[i] =
      Atomics.compareExchange(claims, i, 0, CLAIMED_BY_WORKER) === 0 ? (suite.verify(publicKey, message, signature) ? 1 : 0) : VERDICT_CLAIMED_ELSEWHERE;
    i++;
  });
  port.postMessage(results, [results.buffer]);
});
port.postMessage('ready');
