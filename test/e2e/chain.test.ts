/**
 * The dev chain end to end, as a real process driven over HTTP: every transaction type of
 * the chain built and signed client-side by the official libraries, broadcast, confirmed and
 * visible in blocks and per address; signing with the node keystore; fee estimates;
 * balances exact — over REST (an overspend by one unit refused with the exact balance in
 * WE's message, the exact amount accepted) and in the store after the node stopped; and a
 * restart on the same data directory resuming the chain.
 *
 * Accounts: dev accounts 0–4 (0 mines and holds every role), X (a fresh account that gets
 * a script and then sends nothing: its script is set, not evaluated here) and N (the key of a
 * node registered here).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { Block } from '../../src/protocol/blocks.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { isAtomic } from '../../src/protocol/transactions/atomic.js';
import { ROLES } from '../../src/protocol/transactions/permissions.js';
import { Store } from '../../src/state/store.js';
import {
  aliasTxId,
  assertError,
  broadcast,
  Clock,
  confirmed,
  describeAnswer,
  Ledger,
  minerShare,
  signBytes,
  signer,
  tf1Build,
  tf2Build,
  WEST,
  type Built,
  type Signer,
} from './clients.js';
import { NodeFleet, stateDir, until, type DevNode } from './support.js';

const fleet = new NodeFleet();
const clock = new Clock();
const ledger = new Ledger();

/** WE's default minimal fees (application.conf, fees.base), in WEST units. */
const FEE = {
  issue: WEST,
  transfer: 1_000_000n,
  reissue: WEST,
  burn: 5_000_000n,
  lease: 1_000_000n,
  leaseCancel: 1_000_000n,
  alias: WEST,
  massTransfer: 5_000_000n,
  massTransferPer2: 1_000_000n,
  data: 5_000_000n,
  setScript: 50_000_000n,
  sponsor: WEST,
  permit: 1_000_000n,
  registerNode: 1_000_000n,
  createPolicy: WEST,
  updatePolicy: 50_000_000n,
} as const;

const DEV_SEEDS = [0, 1, 2, 3, 4].map((i) => `weft dev chain account ${i} - never use this seed on a real network`);
const GENESIS_WEST = [9_600_000n, 100_000n, 100_000n, 100_000n, 100_000n].map((w) => w * WEST);
/** RIDE v1 `true`, as a client's compiler gives it. */
const SCRIPT_TRUE = 'base64:AQa3b8tH';
const ALIAS = 'e2e-two';

interface SentTx {
  readonly id: string;
  readonly type: number;
  readonly sender: string;
  /** Addresses that must list the transaction besides its sender. */
  readonly parties: readonly string[];
  /** Ids of inner transactions (atomic). */
  readonly inner: readonly string[];
  height?: number;
}

const num = (v: bigint): number => {
  assert.ok(v <= BigInt(Number.MAX_SAFE_INTEGER));
  return Number(v);
};

describe('dev chain end to end: every transaction of the chain over HTTP', { timeout: 170_000 }, () => {
  let node: DevNode;
  let dataDir: string;
  let A: Signer[] = [];
  let X: Signer;
  let N: Signer;
  const sent: SentTx[] = [];
  let token = '';
  let ownToken = '';
  let leaseId = '';
  let policyId = '';
  let genesisSignature = '';
  let stoppedHeight = 0;

  /** Broadcasts, checks the node's id, records what was sent. */
  async function send(built: Built, parties: readonly string[] = [], options: { expectedId?: string; inner?: readonly string[] } = {}): Promise<SentTx> {
    const json = await broadcast(node, built, options.expectedId);
    const tx: SentTx = { id: String(json.id), type: Number(json.type), sender: built.sender.address, parties, inner: options.inner ?? [] };
    sent.push(tx);
    return tx;
  }

  /** Broadcasts a round of independent transactions, then waits until all are confirmed. */
  async function round(items: ReadonlyArray<Promise<SentTx>>): Promise<SentTx[]> {
    const txs = await Promise.all(items);
    const infos = await Promise.all(txs.map((t) => confirmed(node, t.id)));
    txs.forEach((t, i) => {
      t.height = infos[i].height;
      assert.equal(infos[i].id, t.id);
    });
    // /blocks/last: the liquid block only grows, so one at a transaction's height holds it.
    const last = await node.get('/blocks/last');
    assert.equal(last.status, 200, describeAnswer(last));
    const inLast = new Set(last.json.transactions.map((t: { id: string }) => t.id));
    for (const t of txs) if (t.height === last.json.height) assert.ok(inLast.has(t.id), `${t.id} in /blocks/last at height ${t.height}`);
    return txs;
  }

  before(async () => {
    dataDir = fleet.tempDir();
    node = await fleet.start(dataDir);
    A = await Promise.all(DEV_SEEDS.map((s) => signer(s)));
    X = await signer('weft e2e scripted account - never use this seed on a real network');
    N = await signer('weft e2e registered node - never use this seed on a real network');
    A.forEach((a, i) => ledger.add(a.address, null, GENESIS_WEST[i]!));
  });

  after(() => {
    if (node?.running) node.kill();
  });

  it('documents its accounts in dev-accounts.json as the official clients derive them', async () => {
    const file = node.accounts();
    assert.equal(file.restUrl, node.url);
    assert.equal(file.apiKey, 'weft-dev-api-key');
    assert.equal(file.chainId, 'T');
    assert.equal(file.accounts.length, 5);
    file.accounts.forEach((a, i) => {
      assert.equal(a.seed, DEV_SEEDS[i]);
      assert.equal(a.address, A[i]!.address);
      assert.equal(a.publicKey, A[i]!.publicKey);
      assert.equal(a.keystorePassword, `weft-dev-${i}`);
    });
    assert.ok(['miner', 'issuer', 'permissioner', 'connection_manager'].every((r) => file.accounts[0]!.roles.includes(r)));
    const first = await node.get('/blocks/first');
    assert.equal(first.status, 200, describeAnswer(first));
    genesisSignature = first.json.signature;
    assert.equal(first.json.height, 1);
  });

  it('confirms every transaction type built and signed by the official clients', async () => {
    const [a0, a1, a2, a3, a4] = A as [Signer, Signer, Signer, Signer, Signer];

    // Account 1 has no issuer role yet: refused, nothing applied.
    const early = await tf1Build(
      'Issue',
      2,
      { chainId: 84, name: 'Early', description: '', quantity: 1000, decimals: 0, reissuable: false, fee: num(FEE.issue), timestamp: clock.next() },
      a1,
    );
    const refused = await node.post('/transactions/broadcast', early.json);
    assertError(refused, 400, 112, /^State check failed\. Reason: .*Has no active 'issuer' role/);

    // Round 1: independent transactions of every sender.
    const issue = await tf2Build(
      'Issue',
      2,
      {
        chainId: 84,
        name: 'E2E Token',
        description: 'end-to-end test token',
        quantity: 1_000_000_000_000,
        decimals: 2,
        reissuable: true,
        fee: num(FEE.issue),
        timestamp: clock.next(),
      },
      a0,
    );
    token = issue.id;
    ledger.add(a0.address, token, 1_000_000_000_000n);
    ledger.fee(issue.id, a0.address, FEE.issue);

    const westTransfer = await tf1Build(
      'Transfer',
      2,
      { recipient: a1.address, amount: 1000 * 1e8, fee: num(FEE.transfer), timestamp: clock.next(), attachment: '' },
      a0,
    );
    ledger.move(a0.address, a1.address, null, 1000n * WEST);
    ledger.fee(westTransfer.id, a0.address, FEE.transfer);

    const alias = await tf2Build('CreateAlias', 4, { alias: ALIAS, fee: num(FEE.alias), timestamp: clock.next() }, a2);
    const aliasId = aliasTxId(ALIAS);
    ledger.fee(aliasId, a2.address, FEE.alias);

    const lease = await tf1Build('Lease', 2, { recipient: a3.address, amount: 500 * 1e8, fee: num(FEE.lease), timestamp: clock.next() }, a1);
    leaseId = lease.id;
    ledger.fee(lease.id, a1.address, FEE.lease);

    const massFee = FEE.massTransfer + 2n * FEE.massTransferPer2; // 3 transfers
    const mass = await tf1Build(
      'MassTransfer',
      1,
      {
        transfers: [
          { recipient: a1.address, amount: 10 * 1e8 },
          { recipient: a2.address, amount: 20 * 1e8 },
          { recipient: a3.address, amount: 30 * 1e8 },
        ],
        fee: num(massFee),
        timestamp: clock.next(),
        attachment: '',
      },
      a0,
    );
    ledger.move(a0.address, a1.address, null, 10n * WEST);
    ledger.move(a0.address, a2.address, null, 20n * WEST);
    ledger.move(a0.address, a3.address, null, 30n * WEST);
    ledger.fee(mass.id, a0.address, massFee);

    const data = await tf2Build(
      'Data',
      3,
      {
        authorPublicKey: a3.publicKey,
        data: [
          { key: 'int', type: 'integer', value: 42 },
          { key: 'flag', type: 'boolean', value: true },
          { key: 'text', type: 'string', value: 'héllo e2e' },
          { key: 'blob', type: 'binary', value: `base64:${Buffer.from([1, 2, 3, 255]).toString('base64')}` },
        ],
        fee: num(FEE.data),
        timestamp: clock.next(),
      },
      a3,
    );
    ledger.fee(data.id, a3.address, FEE.data);

    const permit = await tf1Build('Permit', 1, { target: a1.address, opType: 'add', role: 'issuer', fee: num(FEE.permit), timestamp: clock.next() }, a0);
    ledger.fee(permit.id, a0.address, FEE.permit);

    const register = await tf2Build(
      'RegisterNode',
      1,
      { targetPubKey: N.publicKey, nodeName: 'e2e-node', opType: 'add', fee: num(FEE.registerNode), timestamp: clock.next() },
      a0,
    );
    ledger.fee(register.id, a0.address, FEE.registerNode);

    const policy = await tf2Build(
      'CreatePolicy',
      3,
      {
        policyName: 'e2e policy',
        description: 'members are registered participants',
        recipients: [a1.address, a2.address],
        owners: [a0.address],
        fee: num(FEE.createPolicy),
        timestamp: clock.next(),
      },
      a0,
    );
    policyId = policy.id;
    ledger.fee(policy.id, a0.address, FEE.createPolicy);

    const fundX = await tf2Build(
      'Transfer',
      3,
      { recipient: X.address, amount: 10 * 1e8, fee: num(FEE.transfer), timestamp: clock.next(), attachment: '' },
      a0,
    );
    ledger.move(a0.address, X.address, null, 10n * WEST);
    ledger.fee(fundX.id, a0.address, FEE.transfer);

    await round([
      send(issue),
      send(westTransfer, [a1.address]),
      send(alias, [], { expectedId: aliasId }),
      send(lease, [a3.address]),
      send(mass, [a1.address, a2.address, a3.address]),
      send(data),
      // WE indexes a transaction under the addresses whose balances it changes: not the permit's target.
      send(permit),
      send(register),
      send(policy),
      send(fundX, [X.address]),
    ]);

    // Round 2: what depends on round 1.
    const reissue = await tf2Build(
      'Reissue',
      2,
      { chainId: 84, assetId: token, quantity: 500_000_000_000, reissuable: true, fee: num(FEE.reissue), timestamp: clock.next() },
      a0,
    );
    ledger.add(a0.address, token, 500_000_000_000n);
    ledger.fee(reissue.id, a0.address, FEE.reissue);

    const burn = await tf2Build('Burn', 2, { chainId: 84, assetId: token, amount: 100_000_000_000, fee: num(FEE.burn), timestamp: clock.next() }, a0);
    ledger.add(a0.address, token, -100_000_000_000n);
    ledger.fee(burn.id, a0.address, FEE.burn);

    const sponsor = await tf2Build('SponsorFee', 1, { assetId: token, isEnabled: true, fee: num(FEE.sponsor), timestamp: clock.next() }, a0);
    ledger.fee(sponsor.id, a0.address, FEE.sponsor);

    const assetTransfer = await tf2Build(
      'Transfer',
      3,
      { recipient: a2.address, assetId: token, amount: 10_000_000_000, fee: num(FEE.transfer), timestamp: clock.next(), attachment: '' },
      a0,
    );
    ledger.move(a0.address, a2.address, token, 10_000_000_000n);
    ledger.fee(assetTransfer.id, a0.address, FEE.transfer);

    const toAlias = await tf2Build(
      'Transfer',
      3,
      { recipient: `alias:T:${ALIAS}`, amount: 5 * 1e8, fee: num(FEE.transfer), timestamp: clock.next(), attachment: '' },
      a0,
    );
    ledger.move(a0.address, a2.address, null, 5n * WEST);
    ledger.fee(toAlias.id, a0.address, FEE.transfer);

    const cancel = await tf1Build('LeaseCancel', 2, { chainId: 84, leaseId, fee: num(FEE.leaseCancel), timestamp: clock.next() }, a1);
    ledger.fee(cancel.id, a1.address, FEE.leaseCancel);

    const ownIssue = await tf1Build(
      'Issue',
      2,
      {
        chainId: 84,
        name: 'Own Token',
        description: 'issued by account 1',
        quantity: 1000,
        decimals: 0,
        reissuable: false,
        fee: num(FEE.issue),
        timestamp: clock.next(),
      },
      a1,
    );
    ownToken = ownIssue.id;
    ledger.add(a1.address, ownToken, 1000n);
    ledger.fee(ownIssue.id, a1.address, FEE.issue);

    const update = await tf2Build(
      'UpdatePolicy',
      1,
      { policyId, recipients: [a3.address, N.address], owners: [], opType: 'add', fee: num(FEE.updatePolicy), timestamp: clock.next() },
      a0,
    );
    ledger.fee(update.id, a0.address, FEE.updatePolicy);

    // Atomic: a transfer V3 and a data V3 of account 1, each with the atomic badge.
    const innerTransfer = await tf2Build(
      'Transfer',
      3,
      { recipient: a4.address, amount: 7 * 1e8, fee: num(FEE.transfer), timestamp: clock.next(), attachment: '', atomicBadge: {} },
      a1,
    );
    const innerData = await tf2Build(
      'Data',
      3,
      {
        authorPublicKey: a1.publicKey,
        data: [{ key: 'atomic', type: 'string', value: 'yes' }],
        fee: num(FEE.data),
        timestamp: clock.next(),
        atomicBadge: { trustedSender: a1.address },
      },
      a1,
    );
    const atomic = await tf2Build(
      'Atomic',
      1,
      {
        transactions: [
          { ...innerTransfer.json, id: innerTransfer.id },
          { ...innerData.json, id: innerData.id },
        ],
        timestamp: clock.next(),
      },
      a1,
    );
    ledger.move(a1.address, a4.address, null, 7n * WEST);
    ledger.fee(innerTransfer.id, a1.address, FEE.transfer);
    ledger.fee(innerData.id, a1.address, FEE.data);

    const setScript = await tf2Build(
      'SetScript',
      1,
      { chainId: 84, script: SCRIPT_TRUE, name: 'always true', description: 'e2e', fee: num(FEE.setScript), timestamp: clock.next() },
      X,
    );
    ledger.fee(setScript.id, X.address, FEE.setScript);

    await round([
      send(reissue),
      send(burn),
      send(sponsor),
      send(assetTransfer, [a2.address]),
      send(toAlias, [a2.address]),
      send(cancel, [a3.address]),
      send(ownIssue),
      send(update),
      // WE indexes the container under its sender, the inner transactions under their own parties.
      send(atomic, [], { inner: [innerTransfer.id, innerData.id] }),
      send(setScript),
    ]);

    // Round 3: a transfer whose fee is paid in the sponsored asset.
    const sponsoredFee = await tf2Build(
      'Transfer',
      3,
      { recipient: a3.address, amount: 3 * 1e8, fee: num(FEE.transfer), feeAssetId: token, timestamp: clock.next(), attachment: '' },
      a2,
    );
    ledger.move(a2.address, a3.address, null, 3n * WEST);
    ledger.fee(sponsoredFee.id, a2.address, FEE.transfer, { assetId: token, issuer: a0.address });
    await round([send(sponsoredFee, [a3.address])]);

    // Inner transactions of the atomic are found by their own ids, at the atomic's height.
    const atomicTx = sent.find((t) => t.type === 120)!;
    for (const id of atomicTx.inner) {
      const info = await confirmed(node, id, 2000);
      assert.equal(info.height, atomicTx.height);
    }
    const atomicInfo = await node.get(`/transactions/info/${atomicTx.id}`);
    assert.deepEqual(
      atomicInfo.json.transactions.map((t: { id: string }) => t.id),
      atomicTx.inner,
    );
    assert.equal(atomicInfo.json.miner, a0.publicKey, 'the node mined the atomic: it names itself as miner');
    assert.equal(atomicInfo.json.proofs.length, 2, "the sender's proof and the miner's");
    assert.deepEqual(atomicInfo.json.transactions[0].atomicBadge, {});
    assert.deepEqual(atomicInfo.json.transactions[1].atomicBadge, { trustedSender: a1.address });
    const types = new Set(sent.map((t) => t.type));
    for (const t of [3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 102, 111, 112, 113, 120]) assert.ok(types.has(t), `type ${t} was confirmed`);
  });

  it('shows every confirmed transaction in its block, in /blocks/seq, /blocks/last and per address', async () => {
    assert.ok(sent.length > 0, 'the previous test sent transactions');
    const heights = sent.map((t) => t.height!);
    const from = Math.min(...heights);
    const top = (await node.get('/blocks/height')).json.height as number;
    assert.ok(top >= Math.max(...heights));
    // /blocks/at/{h}: extended JSON of the block holding each transaction.
    for (const tx of sent) {
      const block = await node.get(`/blocks/at/${tx.height}`);
      assert.equal(block.status, 200, describeAnswer(block));
      assert.equal(block.json.height, tx.height);
      const found = block.json.transactions.find((t: { id: string }) => t.id === tx.id);
      assert.ok(found, `${tx.id} (type ${tx.type}) in /blocks/at/${tx.height}`);
      assert.equal(found.type, tx.type);
    }
    // /blocks/seq over the whole range (≤ 100 blocks at a time): every id once.
    const seen = new Map<string, number>();
    for (let h = from; h <= top; h += 100) {
      const seq = await node.get(`/blocks/seq/${h}/${Math.min(top, h + 99)}`);
      assert.equal(seq.status, 200, describeAnswer(seq));
      for (const b of seq.json) for (const t of b.transactions) seen.set(t.id, b.height);
    }
    for (const tx of sent) assert.equal(seen.get(tx.id), tx.height, `${tx.id} in /blocks/seq at its height`);
    // /blocks/last is the top block, linked to the one below it.
    const last = await node.get('/blocks/last');
    assert.equal(last.status, 200);
    assert.ok(last.json.height >= top);
    const below = await node.get(`/blocks/at/${last.json.height - 1}`);
    assert.equal(last.json.reference, below.json.signature);
    assert.equal(last.json.generator, A[0]!.address);
    // /transactions/address/{a}/limit/{n}: the sender and every party list it.
    const lists = new Map<string, Set<string>>();
    const listOf = async (address: string): Promise<Set<string>> => {
      let ids = lists.get(address);
      if (ids === undefined) {
        const r = await node.get(`/transactions/address/${address}/limit/1000`);
        assert.equal(r.status, 200, describeAnswer(r));
        assert.ok(Array.isArray(r.json) && Array.isArray(r.json[0]), 'WE nests the list: [[tx, ...]]');
        ids = new Set(r.json[0].map((t: { id: string }) => t.id));
        lists.set(address, ids);
      }
      return ids;
    };
    for (const tx of sent) {
      for (const address of [tx.sender, ...tx.parties]) assert.ok((await listOf(address)).has(tx.id), `${tx.id} (type ${tx.type}) listed for ${address}`);
    }
    const atomic = sent.find((t) => t.type === 120)!;
    const [innerTransfer, innerData] = atomic.inner as [string, string];
    for (const id of [atomic.id, innerTransfer, innerData]) assert.ok((await listOf(atomic.sender)).has(id), `${id} listed for the atomic's sender`);
    assert.ok((await listOf(A[4]!.address)).has(innerTransfer), 'the inner transfer is listed for its recipient');
    // Paging with `after`: the page after the newest one starts with the second newest.
    const a0 = A[0]!.address;
    const page1 = await node.get(`/transactions/address/${a0}/limit/1`);
    const page2 = await node.get(`/transactions/address/${a0}/limit/1?after=${page1.json[0][0].id}`);
    const full = await node.get(`/transactions/address/${a0}/limit/2`);
    assert.deepEqual(
      [page1.json[0][0].id, page2.json[0][0].id],
      full.json[0].map((t: { id: string }) => t.id),
    );
  });

  it('signs with the node keystore (sign, signAndBroadcast) and calculates fees', async () => {
    const [, , , a3, a4] = A as [Signer, Signer, Signer, Signer, Signer];
    const a0 = A[0]!;
    // /transactions/sign: the signed JSON verifies with the library over the library's bytes.
    const request = {
      type: 4,
      version: 3,
      sender: a3.address,
      password: 'weft-dev-3',
      recipient: a4.address,
      amount: 2 * 1e8,
      fee: num(FEE.transfer),
      attachment: '',
    };
    const signedAnswer = await node.post('/transactions/sign', request);
    assert.equal(signedAnswer.status, 200, describeAnswer(signedAnswer));
    const signed = signedAnswer.json;
    assert.equal(signed.senderPublicKey, a3.publicKey);
    assert.equal(signed.proofs.length, 1);
    const again = await tf2Build(
      'Transfer',
      3,
      { recipient: a4.address, amount: 2 * 1e8, fee: num(FEE.transfer), timestamp: signed.timestamp, attachment: '' },
      a3,
    );
    assert.equal(again.id, signed.id, 'the library computes the same id for the node-signed transfer');
    const inPool = await node.get(`/transactions/unconfirmed/info/${signed.id}`);
    assert.equal(inPool.status, 404, 'sign does not broadcast');
    // The node's signature is what the library would accept in place of its own.
    const viaNode = await node.post('/transactions/broadcast', signed);
    assert.equal(viaNode.status, 200, describeAnswer(viaNode));
    ledger.move(a3.address, a4.address, null, 2n * WEST);
    ledger.fee(signed.id, a3.address, FEE.transfer);
    sent.push({ id: signed.id, type: 4, sender: a3.address, parties: [a4.address], inner: [], height: (await confirmed(node, signed.id)).height });

    // Wrong keystore password: 115, nothing signed.
    assertError(await node.post('/transactions/sign', { ...request, password: 'not-it' }), 400, 115);

    // /transactions/signAndBroadcast.
    const sb = await node.post('/transactions/signAndBroadcast', {
      type: 4,
      version: 2,
      sender: a4.address,
      password: 'weft-dev-4',
      recipient: a0.address,
      amount: 1e8,
      fee: num(FEE.transfer),
      attachment: '',
    });
    assert.equal(sb.status, 200, describeAnswer(sb));
    assert.equal(sb.json.senderPublicKey, a4.publicKey);
    ledger.move(a4.address, a0.address, null, WEST);
    ledger.fee(sb.json.id, a4.address, FEE.transfer);
    sent.push({ id: sb.json.id, type: 4, sender: a4.address, parties: [a0.address], inner: [], height: (await confirmed(node, sb.json.id)).height });

    // /transactions/calculateFee: WE's minimal fees at the next height.
    const fee = async (body: Record<string, unknown>): Promise<unknown> => {
      const r = await node.post('/transactions/calculateFee', body);
      assert.equal(r.status, 200, describeAnswer(r));
      return r.json;
    };
    const transferRequest = { type: 4, version: 3, sender: a3.address, recipient: a4.address, amount: 1, attachment: '' };
    assert.deepEqual(await fee(transferRequest), { feeAssetId: null, feeAmount: num(FEE.transfer) });
    assert.deepEqual(await fee({ ...transferRequest, feeAssetId: token }), { feeAssetId: token, feeAmount: num(FEE.transfer) });
    assert.deepEqual(
      await fee({ type: 11, version: 2, sender: a3.address, transfers: [1, 2, 3].map(() => ({ recipient: a4.address, amount: 1 })), attachment: '' }),
      { feeAssetId: null, feeAmount: num(FEE.massTransfer + 2n * FEE.massTransferPer2) },
    );
    assert.deepEqual(await fee({ type: 3, version: 2, sender: a0.address, name: 'Fee Probe', description: '', quantity: 1, decimals: 0, reissuable: false }), {
      feeAssetId: null,
      feeAmount: num(FEE.issue),
    });
    // A fee asset that is not sponsored: WE's 199.
    assertError(
      await node.post('/transactions/calculateFee', { ...transferRequest, feeAssetId: ownToken }),
      400,
      199,
      `Asset '${ownToken}' is not sponsored, cannot be used to pay fees`,
    );
  });

  it('refuses an overspend by exactly one unit and takes the exact balance (WE reports the balance it holds)', async () => {
    const [, , a2, , a4] = A as [Signer, Signer, Signer, Signer, Signer];
    // The sponsored asset: all of it but one unit too many.
    const assetBalance = ledger.balance(a2.address, token);
    assert.equal(assetBalance, 10_000_000_000n - FEE.transfer);
    const tooMuchAsset = await tf2Build(
      'Transfer',
      3,
      { recipient: a4.address, assetId: token, amount: num(assetBalance + 1n), fee: num(FEE.transfer), timestamp: clock.next(), attachment: '' },
      a2,
    );
    assertError(
      await node.post('/transactions/broadcast', tooMuchAsset.json),
      400,
      112,
      `State check failed. Reason: Attempt to transfer unavailable funds: Transaction application leads to negative asset '${token}' balance to (at least) temporary negative state, current balance is ${assetBalance}, spends equals ${-(assetBalance + 1n)}, result is -1`,
    );
    const allAsset = await tf2Build(
      'Transfer',
      3,
      { recipient: a4.address, assetId: token, amount: num(assetBalance), fee: num(FEE.transfer), timestamp: clock.next(), attachment: '' },
      a2,
    );
    ledger.move(a2.address, a4.address, token, assetBalance);
    ledger.fee(allAsset.id, a2.address, FEE.transfer);
    await round([send(allAsset, [a4.address])]);

    // WEST: the whole balance minus the fee, plus one.
    const west = ledger.balance(a2.address);
    const tooMuch = await tf1Build(
      'Transfer',
      2,
      { recipient: a4.address, amount: num(west - FEE.transfer + 1n), fee: num(FEE.transfer), timestamp: clock.next(), attachment: '' },
      a2,
    );
    assertError(
      await node.post('/transactions/broadcast', tooMuch.json),
      400,
      112,
      `State check failed. Reason: Attempt to transfer unavailable funds: Transaction application leads to negative WEST balance to (at least) temporary negative state, current balance equals ${west}, spends equals ${-(west + 1n)}, result is -1`,
    );
    const all = await tf1Build(
      'Transfer',
      2,
      { recipient: a4.address, amount: num(west - FEE.transfer), fee: num(FEE.transfer), timestamp: clock.next(), attachment: '' },
      a2,
    );
    ledger.move(a2.address, a4.address, null, west - FEE.transfer);
    ledger.fee(all.id, a2.address, FEE.transfer);
    await round([send(all, [a4.address])]);
    assert.equal(ledger.balance(a2.address), 0n);

    // Account 1 leased out 500 WEST and cancelled: all of it is spendable again. A spend of
    // its balance + 1 is refused with that exact balance.
    const a1 = A[1]!;
    const west1 = ledger.balance(a1.address);
    const over1 = await tf2Build(
      'Transfer',
      3,
      { recipient: a4.address, amount: num(west1 - FEE.transfer + 1n), fee: num(FEE.transfer), timestamp: clock.next(), attachment: '' },
      a1,
    );
    assertError(
      await node.post('/transactions/broadcast', over1.json),
      400,
      112,
      new RegExp(`current balance equals ${west1}, spends equals ${-(west1 + 1n)}, result is -1$`),
    );
  });

  it('after SIGTERM, the store holds exactly the expected balances and state', async () => {
    const last = await node.get('/blocks/height');
    assert.ok(last.json.height >= 2);
    const code = await node.stop();
    assert.equal(code, 0, `clean exit\n${node.output().slice(-2000)}`);

    const protocol = await Protocol.create({ crypto: 'waves', chainId: 'T' });
    const store = Store.open(stateDir(dataDir), protocol);
    try {
      stoppedHeight = store.height();
      const bytes = (address: string): Uint8Array => protocol.addresses.parseAddress(address).bytes;
      // The NG carry: 60 % of the top block's fees waits for the next key block's miner.
      const top = Block.fromBytes(protocol, store.blockBytes(stoppedHeight)!);
      let carry = 0n;
      for (const tx of top.transactions) {
        const fee = isAtomic(tx) ? tx.data.transactions.reduce((s, inner) => s + ledger.minerFee(inner.idBase58), 0n) : ledger.minerFee(tx.idBase58);
        carry += fee - minerShare(fee);
      }
      assert.equal(store.carryFee(), carry, 'carry fee of the top block');
      const miner = A[0]!.address;
      for (const { address, assetId, amount } of ledger.entries()) {
        // Account 0 mines every block: it received every fee but the carry.
        const expected = address === miner && assetId === null ? amount + ledger.totalFees() - carry : amount;
        assert.equal(store.balance(bytes(address), assetId === null ? null : decodeBase58(assetId)), expected, `balance of ${address} in ${assetId ?? 'WEST'}`);
      }
      // Leases: cancelled, no lease balance left.
      assert.equal(store.lease(decodeBase58(leaseId))?.active, false);
      for (const a of [A[1]!, A[3]!]) assert.deepEqual(store.leaseBalance(bytes(a.address)), { in: 0n, out: 0n });
      // The asset: issued + reissued − burned, sponsored, still reissuable.
      const asset = store.asset(decodeBase58(token))!;
      assert.equal(asset.volume, 1_400_000_000_000n);
      assert.equal(asset.sponsorship, true);
      assert.equal(asset.reissuable, true);
      assert.equal(asset.decimals, 2);
      assert.equal(encodeBase58(asset.issuer), A[0]!.publicKey);
      assert.equal(store.asset(decodeBase58(ownToken))?.volume, 1000n);
      // Alias, data, script, participants, policy.
      assert.equal(encodeBase58(store.aliasOwner(ALIAS)!), A[2]!.address);
      assert.deepEqual(
        store
          .dataEntries(bytes(A[3]!.address))
          .map((e) => e.key)
          .sort(),
        ['blob', 'flag', 'int', 'text'],
      );
      assert.equal(store.dataEntries(bytes(A[1]!.address)).length, 1, 'the atomic data transaction');
      assert.equal(Buffer.from(store.accountScript(bytes(X.address))!).toString('base64'), SCRIPT_TRUE.slice('base64:'.length));
      assert.equal(store.participant(bytes(N.address))?.nodeName, 'e2e-node');
      const policy = store.policy(decodeBase58(policyId))!;
      assert.deepEqual(policy.recipients.map((r) => encodeBase58(r)).sort(), [A[1]!.address, A[2]!.address, A[3]!.address, N.address].sort());
      assert.deepEqual(
        policy.owners.map((o) => encodeBase58(o)),
        [A[0]!.address],
      );
      // The permission granted to account 1.
      assert.ok(
        store.permissionOps(bytes(A[1]!.address)).some((op) => op.opType === 'add' && op.role === ROLES.issuer),
        'issuer role added',
      );
    } finally {
      await store.close();
    }
  });

  it('resumes the chain after a restart on the same data directory', async () => {
    assert.ok(stoppedHeight > 0, 'the previous test stopped the node');
    node = await fleet.start(dataDir);
    assert.equal(node.accounts().restUrl, node.url, 'dev-accounts.json names the new REST port');
    const first = await node.get('/blocks/first');
    assert.equal(first.json.signature, genesisSignature, 'same genesis block');
    const height = (await node.get('/blocks/height')).json.height as number;
    assert.ok(height >= stoppedHeight, `height ${height} continues from ${stoppedHeight}`);
    for (const tx of sent) {
      const info = await node.get(`/transactions/info/${tx.id}`);
      assert.equal(info.status, 200, `${tx.id} still found: ${describeAnswer(info)}`);
      assert.equal(info.json.height, tx.height);
    }
    // The miner goes on: a new key block, and a new transaction confirmed.
    await until('a key block after the restart', async () => ((await node.get('/blocks/height')).json.height > stoppedHeight ? true : undefined), 20_000, 250);
    const [a0, , , a3] = A as [Signer, Signer, Signer, Signer];
    const fresh = await tf2Build('Transfer', 3, { recipient: a3.address, amount: 1e8, fee: num(FEE.transfer), timestamp: clock.next(), attachment: '' }, a0);
    ledger.move(a0.address, a3.address, null, WEST);
    ledger.fee(fresh.id, a0.address, FEE.transfer);
    const [tx] = await round([send(fresh, [a3.address])]);
    assert.ok(tx!.height! > stoppedHeight);
    // The reopened state holds account 3's exact balance: an overspend by one unit names it.
    const west3 = ledger.balance(a3.address);
    const over = await tf2Build(
      'Transfer',
      3,
      { recipient: a0.address, amount: num(west3 - FEE.transfer + 1n), fee: num(FEE.transfer), timestamp: clock.next(), attachment: '' },
      a3,
    );
    assertError(
      await node.post('/transactions/broadcast', over.json),
      400,
      112,
      new RegExp(`current balance equals ${west3}, spends equals ${-(west3 + 1n)}, result is -1$`),
    );
    // A forged proof is still refused.
    const forged = { ...fresh.json, timestamp: clock.next(), proofs: [signBytes(Uint8Array.from([1, 2, 3]), a0.privateKey)] };
    assertError(await node.post('/transactions/broadcast', forged), 400, 112, /proof doesn't validate as signature/);
  });
});
