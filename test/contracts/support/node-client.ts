/**
 * What the tests of contracts in a running node (Node.start in-process) do over REST as a
 * client would: sign with the node owner's key, broadcast, and wait for a 105 or a status.
 * The node is asked for each time (a test may restart it).
 */
import assert from 'node:assert/strict';
import type { KeyPair } from '../../../src/crypto/suite.js';
import { stringifyJson } from '../../../src/protocol/json.js';
import { CallContract, CreateContract } from '../../../src/protocol/transactions/contracts.js';
import type { DataEntry } from '../../../src/protocol/transactions/fields.js';
import type { Transaction } from '../../../src/protocol/transactions/schema.js';
import type { Node } from '../../../src/node/node.js';
import { httpRequest, type Answer } from '../../../devkit/http.js';

export type Status = Record<string, unknown>;

/** Contract params from a plain object: numbers as integers, the rest as strings. */
export const kvParams = (o: Readonly<Record<string, string | number>>): DataEntry[] =>
  Object.entries(o).map(([key, value]) => (typeof value === 'number' ? { key, type: 'integer', value: BigInt(value) } : { key, type: 'string', value }));

/** `running()`: the node and the key that signs; `waitMs`: how long a wait lasts before it fails. */
export function nodeContractsClient(running: () => { readonly node: Node; readonly owner: KeyPair }, waitMs: number) {
  const rest = (method: 'GET' | 'POST', path: string, body?: string): Promise<Answer> => httpRequest(running().node.url!, method, path, body);

  const until = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const v = await probe();
      if (v !== undefined) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  const sign = (codec: Parameters<Node['protocol']['transaction']>[0], version: number, data: object): Transaction => {
    const { node, owner } = running();
    return node.protocol.sign(
      node.protocol.transaction(codec, version, { senderPublicKey: owner.publicKey, timestamp: BigInt(Date.now()), feeAssetId: null, ...data }),
      owner.privateKey,
    );
  };

  const broadcast = async (tx: Transaction): Promise<void> => {
    const r = await rest('POST', '/transactions/broadcast', stringifyJson(tx.toJson()));
    assert.equal(r.status, 200, r.text);
  };

  /** The 105 that executed `tx`, once mined. */
  const executed = (tx: Transaction): Promise<Record<string, unknown>> =>
    until(`the 105 of ${tx.idBase58}`, async () => {
      const r = await rest('GET', `/contracts/executed-tx-for/${tx.idBase58}`);
      return r.status === 200 ? (r.json as Record<string, unknown>) : undefined;
    });

  /** The statuses of `tx` so far (none: empty). */
  const statusesOf = async (tx: Transaction): Promise<Status[]> => {
    const r = await rest('GET', `/contracts/status/${tx.idBase58}`);
    return r.status === 200 ? (r.json as Status[]) : [];
  };

  /** The statuses of `tx` once one of them is `status`. */
  const statuses = (tx: Transaction, status: string): Promise<Status[]> =>
    until(`status ${status} of ${tx.idBase58}`, async () => {
      const list = await statusesOf(tx);
      return list.some((s) => s['status'] === status) ? list : undefined;
    });

  /** A CallContract V5. */
  const call = (contractId: Uint8Array, p: Readonly<Record<string, string | number>>, contractVersion = 1): Transaction =>
    sign(CallContract, 5, { contractId, params: kvParams(p), fee: 10_000_000n, contractVersion, atomicBadge: null, payments: [] });

  /** A CreateContract V5 of the key-value SDK contract (test/fixtures/contracts/kv-sdk), its counter starting at `start`. */
  const createKv = (image: string, imageHash: string, start: number): Transaction =>
    sign(CreateContract, 5, {
      image,
      imageHash,
      contractName: 'kv',
      params: kvParams({ start }),
      fee: 100_000_000n,
      atomicBadge: null,
      validationPolicy: { type: 'any' },
      apiVersion: { major: 1, minor: 0 },
      payments: [],
    });

  return { rest, until, sign, broadcast, executed, statusesOf, statuses, call, createKv };
}
