/**
 * A WASM execution thread (see engine.ts): runs one job at a time (vm.ts), reading the
 * node's state through the synchronous channel it was given (state-channel.ts), and
 * answers each job with its outcome. It keeps its protocol, its compiled modules and its
 * spare memories from job to job.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { Protocol } from '../../protocol/protocol.js';
import type { CryptoType } from '../../crypto/suite.js';
import type { WasmJob } from './job.js';
import { channelStateReads, StateChannel } from './state-channel.js';
import { FrameMemories, runWasmJob, WasmModules, type WasmRunner } from './vm.js';
import { lowerThisThreadPriority } from '../../threads/priority.js';

/** What the engine starts a thread with. */
export interface WasmWorkerData {
  readonly crypto: CryptoType;
  readonly chainId: number;
  readonly port: MessagePort;
  readonly signal: Int32Array;
  /** Compiled modules kept. */
  readonly modules: number;
}

const port = parentPort;
if (port === null) throw new Error('the WASM worker runs as a worker thread');
// A contract's code yields the core to the event loop.
lowerThisThreadPriority();
const data = workerData as WasmWorkerData;
const runner: WasmRunner = {
  protocol: await Protocol.create({ crypto: data.crypto, chainId: data.chainId }),
  modules: new WasmModules(data.modules),
  memories: new FrameMemories(),
};
const channel = new StateChannel(data.port, data.signal);
port.on('message', (job: WasmJob) => {
  channel.startJob();
  port.postMessage(runWasmJob(runner, job, (beforeRead) => channelStateReads(channel, beforeRead)));
});
port.postMessage('ready');
