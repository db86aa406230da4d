/**
 * The limits of the node's gRPC event streams (stream-limits.ts, WE's ConnectionsLimiter and
 * ConnectionIdsHolder): the `connection-id` rule (643), the service's `max-connections` and
 * the per-channel share (642), and places given back once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { ConnectionIds, StreamLimits, type LimitedCall } from '../../src/contracts/grpc/stream-limits.js';
import { WeError } from '../../src/errors/catalogue.js';

const callOf = (peer: string, connectionId?: string): LimitedCall => {
  const metadata = new grpc.Metadata();
  if (connectionId !== undefined) metadata.set('connection-id', connectionId);
  return { metadata, getPeer: () => peer };
};

const refused = (f: () => unknown): { code: number; message: string } => {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof WeError);
    return { code: e.code, message: e.message };
  }
  throw new Error('admitted');
};

describe('connection ids', () => {
  it('takes a named id (at most 16 characters, not blank, not in use), generates one otherwise, and gives it back', () => {
    const ids = new ConnectionIds();
    const named = ids.take(callOf('p', 'indexer-1').metadata);
    assert.equal(named.connectionId, 'indexer-1');
    assert.deepEqual(
      refused(() => ids.take(callOf('p', 'indexer-1').metadata)),
      { code: 643, message: "Connection Id 'indexer-1' already in use" },
    );
    assert.deepEqual(
      refused(() => ids.take(callOf('p', 'x'.repeat(17)).metadata)),
      {
        code: 643,
        message: "'connection-id' metadata value max length is 16. Got '17'",
      },
    );
    assert.deepEqual(
      refused(() => ids.take(callOf('p', '   ').metadata)),
      { code: 643, message: "'connection-id' metadata value must be non-empty" },
    );
    assert.equal(ids.take(callOf('p', 'x'.repeat(16)).metadata).connectionId.length, 16);
    const generated = ids.take(callOf('p').metadata);
    assert.match(generated.connectionId, /^[a-z0-9_-]{8}$/);
    named.release();
    named.release();
    assert.equal(ids.take(callOf('p', 'indexer-1').metadata).connectionId, 'indexer-1', 'a released id is free again');
  });
});

describe('stream limits', () => {
  it("admits at most max-connections streams: one more is 642, a released place is free again, and a refused stream's id stays free", () => {
    const limits = new StreamLimits({ maxConnections: 2 });
    const a = limits.admit(callOf('peer-1'));
    limits.admit(callOf('peer-2', 'b'));
    assert.deepEqual(
      refused(() => limits.admit(callOf('peer-3', 'c'))),
      {
        code: 642,
        message: "Max connections count '2' has been exceeded. Please, try again later",
      },
    );
    assert.equal(limits.open, 2);
    a.release();
    a.release();
    assert.equal(limits.open, 1, 'released once');
    assert.equal(limits.admit(callOf('peer-3', 'c')).connectionId, 'c', 'the refused id was not kept');
  });

  it('holds one client connection to its share, checked after the id and the service limit', () => {
    const limits = new StreamLimits({ maxConnections: 5, maxConnectionsPerChannel: 2 });
    const first = limits.admit(callOf('peer-1'));
    limits.admit(callOf('peer-1'));
    const third = refused(() => limits.admit(callOf('peer-1', 'third')));
    assert.equal(third.code, 642);
    assert.match(third.message, /Max connections count '2' per channel has been exceeded/);
    assert.equal(refused(() => limits.admit(callOf('peer-1', ''))).code, 643, 'a bad id is refused first');
    limits.admit(callOf('peer-2'));
    first.release();
    assert.equal(limits.admit(callOf('peer-1', 'third')).connectionId, 'third');
  });
});
