/**
 * A signature-verification thread (see verify-pool.ts): receives packed batches of
 * (publicKey, message, signature) (verify-batch.ts) and answers one byte per item, 1 for valid.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { CryptoType } from './suite.js';
import { createCryptoSuite } from './create-suite.js';
import { forEachPackedCheck, packedCheckCount } from './verify-batch.js';

const port = parentPort;
if (port === null) throw new Error('verify-worker runs as a worker thread');
const suite = await createCryptoSuite((workerData as { type: CryptoType }).type);
port.on('message', (batch: ArrayBuffer) => {
  const results = new Uint8Array(packedCheckCount(batch));
  let i = 0;
  forEachPackedCheck(batch, (publicKey, message, signature) => {
    results[i++] = suite.verify(publicKey, message, signature) ? 1 : 0;
  });
  port.postMessage(results, [results.buffer]);
});
port.postMessage('ready');
