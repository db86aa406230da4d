/**
 * A signature-verification thread (see verify-pool.ts): receives batches of
 * [publicKey, message, signature] and answers one byte per item, 1 for valid.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createCryptoSuite, type CryptoType } from './suite.js';

const port = parentPort;
if (port === null) throw new Error('verify-worker runs as a worker thread');
const suite = await createCryptoSuite((workerData as { type: CryptoType }).type);
port.on('message', (batch: Array<[Uint8Array, Uint8Array, Uint8Array]>) => {
  const results = new Uint8Array(batch.length);
  for (let i = 0; i < batch.length; i++) {
    const [publicKey, message, signature] = batch[i]!;
    results[i] = suite.verify(publicKey, message, signature) ? 1 : 0;
  }
  port.postMessage(results, [results.buffer]);
});
port.postMessage('ready');
