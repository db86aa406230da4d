/**
 * Untrusted work's threads run niced: the thread that asks is lowered, the process's other
 * threads (the event loop) keep their priority.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { UNTRUSTED_WORK_NICENESS } from '../../src/threads/priority.js';

/** The niceness of a thread, from /proc/<pid>/task/<tid>/stat (field 19, after the command in parentheses). */
const nicenessOf = (path: string): number => Number(readFileSync(path, 'utf8').split(') ')[1]!.split(' ')[16]);

describe('thread priority', { skip: process.platform !== 'linux' && 'Linux only' }, () => {
  it('lowers the calling worker thread only', async () => {
    const moduleUrl = new URL('../../src/threads/priority.js', import.meta.url).href;
    // CommonJS eval (a worker's eval is CommonJS), importing the ES module.
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       const { readlinkSync } = require('node:fs');
       import(${JSON.stringify(moduleUrl)}).then(({ lowerThisThreadPriority }) => {
         const lowered = lowerThisThreadPriority();
         parentPort.postMessage({ lowered, self: readlinkSync('/proc/thread-self') });
         setTimeout(() => {}, 2000);
       });`,
      { eval: true },
    );
    try {
      const { lowered, self } = await new Promise<{ lowered: boolean; self: string }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      assert.equal(lowered, true);
      assert.equal(nicenessOf(`/proc/${self}/stat`), UNTRUSTED_WORK_NICENESS);
      assert.equal(nicenessOf('/proc/thread-self/stat'), nicenessOf('/proc/self/stat'), 'the event loop keeps the process’s priority');
      assert.notEqual(nicenessOf('/proc/thread-self/stat'), UNTRUSTED_WORK_NICENESS);
    } finally {
      await worker.terminate();
    }
  });
});
