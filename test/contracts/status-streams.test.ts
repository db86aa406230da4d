/**
 * The contract status event streams (ContractStatusService.ContractsExecutionEvents) of a
 * running engine cannot be made to hold the node's memory: one client connection holds at
 * most `max-connections-per-channel` of them when that is set, and a reader that stops reading has its stream
 * ended once STATUS_STREAM_BACKLOG statuses wait for it, while a reader that keeps up gets
 * every status.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { ContractStatusServiceClient, type ContractExecutionResponse } from '@wavesenterprise/js-contract-grpc-client/util/util_contract_status_service.js';
import { STATUS_STREAM_BACKLOG } from '../../src/contracts/grpc/status-service.js';
import { startTestEngine, type TestEngine } from '../../devkit/contracts/engine.js';

/** A client on its own connection: grpc-js shares one connection between the clients of a process unless told not to. */
const client = (port: number): ContractStatusServiceClient =>
  new ContractStatusServiceClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });

type EventStream = grpc.ClientReadableStream<ContractExecutionResponse>;

/** A stream's outcome: it is open (it received its response headers), or it was refused. */
const opened = (stream: EventStream): Promise<'open' | grpc.ServiceError> =>
  new Promise((resolve) => {
    stream.once('metadata', () => resolve('open'));
    stream.once('error', resolve);
  });

const txId = (i: number): Uint8Array => {
  const id = new Uint8Array(32);
  new DataView(id.buffer).setUint32(0, i);
  return id;
};

/** `max-connections-per-channel` of the engine here (unset, one connection may hold the node's max-connections, as in WE). */
const PER_CHANNEL = 2;

describe('contract status event streams', () => {
  let te: TestEngine;
  before(async () => {
    te = await startTestEngine({ statusStreamsPerChannel: PER_CHANNEL });
  });
  after(() => te?.close());

  it(`holds at most ${PER_CHANNEL} streams of one client connection: one more is refused with 642, other connections still open theirs`, async () => {
    const one = client(te.engine.grpcPort);
    const other = client(te.engine.grpcPort);
    const streams: EventStream[] = [];
    const open = (c: ContractStatusServiceClient): Promise<'open' | grpc.ServiceError> => {
      const s = c.contractsExecutionEvents({});
      streams.push(s);
      // A status makes the server send its headers: `metadata` tells the stream is open.
      const answer = opened(s);
      setTimeout(() => te.engine.statuses.record(txId(0), { status: 'Failure', code: 1, message: 'open?' }), 100);
      return answer;
    };
    try {
      for (let i = 0; i < PER_CHANNEL; i++) assert.equal(await open(one), 'open');
      const refused = await open(one);
      assert.ok(refused !== 'open', 'a third stream on the same connection is refused');
      assert.equal(refused.code, grpc.status.UNAVAILABLE);
      assert.equal(refused.metadata.get('error-code')[0], '642');
      assert.match(refused.details, new RegExp(`Max connections count '${PER_CHANNEL}' per channel has been exceeded`));
      assert.equal(await open(other), 'open', 'another connection opens its own');
      // Closing a stream gives its place back.
      streams[0]!.cancel();
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(await open(one), 'open');
    } finally {
      for (const s of streams) {
        s.on('error', () => undefined);
        s.cancel();
      }
      one.close();
      other.close();
    }
  });

  it('ends the stream of a reader that stops reading once the statuses waiting for it pass the backlog, and keeps serving a reader that keeps up', async () => {
    const slow = client(te.engine.grpcPort);
    const fast = client(te.engine.grpcPort);
    const recorded = 4 * STATUS_STREAM_BACKLOG;
    try {
      const stalled = slow.contractsExecutionEvents({});
      const keepsUp = fast.contractsExecutionEvents({});
      let fastGot = 0;
      keepsUp.on('data', () => fastGot++);
      let fastEnd: grpc.ServiceError | undefined;
      keepsUp.on('error', (e: grpc.ServiceError) => (fastEnd = e));
      const stalledEnd = new Promise<grpc.ServiceError>((resolve) => stalled.on('error', resolve));
      let slowGot = 0;
      stalled.on('data', () => slowGot++);
      stalled.pause();
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Recorded in batches, a few thousand a second, and never more than a quarter of the
      // backlog ahead of what the reader that keeps up has taken: on a busy machine "keeps up"
      // means what it says, however slowly this process is scheduled.
      const message = 'a status message of a thousand characters, as long as WE lets one be '.repeat(15).slice(0, 1000);
      const catchUpDeadline = Date.now() + 60_000;
      for (let i = 1; i <= recorded; i++) {
        te.engine.statuses.record(txId(i), { status: 'Error', code: 2, message });
        if (i % 16 !== 0) continue;
        await new Promise((resolve) => setTimeout(resolve, 5));
        while (fastGot < i - STATUS_STREAM_BACKLOG / 4 && fastEnd === undefined && Date.now() < catchUpDeadline)
          await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      stalled.resume();
      const end = await Promise.race([
        stalledEnd,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`the stalled stream was not ended; its reader got ${slowGot} of ${recorded}`)), 15_000),
        ),
      ]);
      assert.equal(end.code, grpc.status.RESOURCE_EXHAUSTED);
      assert.equal(end.metadata.get('error-code')[0], '642');
      assert.match(end.details, new RegExp(`its reader fell '${STATUS_STREAM_BACKLOG}' messages behind`));
      // What the stream held when it was ended, not everything recorded since: the node kept no more for it.
      assert.ok(slowGot < recorded / 2, `the stalled reader got ${slowGot} of ${recorded}`);
      const deadline = Date.now() + 10_000;
      while (fastGot < recorded && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(fastEnd, undefined, 'the stream of the reader that keeps up goes on');
      assert.equal(fastGot, recorded, 'the reader that keeps up got every status');
      keepsUp.cancel();
    } finally {
      slow.close();
      fast.close();
    }
  });
});
