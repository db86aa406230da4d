/**
 * The chain's one door into the pool (src/chain/admission.ts) on a real forged PoA chain:
 * the order of a client's checks (certificates, fee, AlreadyInProcessing, the pool), WE's
 * refusals after the pool took a transaction, the node's own transactions, the dry run of
 * /debug/validate, and peers' transactions.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Admission, type CertificatePolicy } from '../../src/chain/admission.js';
import type { ChainChangeOrigin } from '../../src/chain/blockchain.js';
import { UtxPool } from '../../src/chain/utx.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { CreateContract } from '../../src/protocol/transactions/contracts.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { certificatePathBuildError, WeError } from '../../src/errors/catalogue.js';
import { alice, bob, ChainNode, Clock, minerA, minerB, minerC, p, transfer, UTX, WEST, type Account } from './fork-fixture.js';

/** A forged chain, its pool and the door in front of it, with what the door told and refused. */
function door(name: string, certificates?: CertificatePolicy) {
  const clock = new Clock();
  const node = ChainNode.create(name, clock, [minerA]);
  node.forge();
  const refused: string[] = [];
  const onRefused = (tx: Transaction, e: WeError): void => void refused.push(`${tx.idBase58} ${e.message}`);
  const pool = new UtxPool({ chain: node.chain, settings: UTX, now: clock.read, onRefused });
  const admission = new Admission({ chain: node.chain, pool, now: clock.read, onRefused, ...(certificates === undefined ? {} : { certificates }) });
  const admitted: Array<[string, ChainChangeOrigin]> = [];
  admission.onAdmitted((tx, origin) => void admitted.push([tx.idBase58, origin]));
  return { clock, node, pool, admission, refused, admitted };
}

let stamp = 0n;
/** Any transaction body signed by `from`, stamped just before the clock. */
function signed(clock: Clock, from: Account, body: Record<string, unknown>): Transaction {
  stamp++;
  const json = { senderPublicKey: encodeBase58(from.keyPair.publicKey), timestamp: clock.now - 2000n + stamp, proofs: [], ...body };
  return p.sign(p.transactionFromJson(json, { forBroadcast: false }), from.keyPair.privateKey);
}

const weError = (code: number, message: RegExp) => (e: unknown) => e instanceof WeError && e.code === code && message.test(e.message);

describe("a client's broadcast", () => {
  it('checks its certificates first, then the fee, then whether it came already, then the pool; each admission is told with its origin', async () => {
    const { clock, pool, admission, refused, admitted } = door('client-order');
    const cheap = signed(clock, alice, { type: 4, version: 3, recipient: bob.b58, amount: 1n, fee: 1n, attachment: '' });
    // Both wrong: the certificates win (and are no refusal of the pool's).
    await assert.rejects(
      admission.admit(cheap, { origin: 'api', certificates: ['%%%'] }),
      weError(121, /^Error while parsing a certificate: Encountered an invalid Base64/),
    );
    assert.deepEqual(refused, []);
    await assert.rejects(admission.admit(cheap, { origin: 'api' }), weError(199, /does not exceed minimal value of '1000000'$/));
    assert.equal(refused.length, 1);

    const tx = transfer(clock, alice, bob, 5n * WEST);
    assert.equal(await admission.admit(tx, { origin: 'api', certificates: [] }), tx);
    assert.deepEqual(admitted, [[tx.idBase58, 'api']]);
    await assert.rejects(admission.admit(tx, { origin: 'api' }), weError(199, new RegExp(`^AlreadyInProcessing\\(${tx.idBase58}\\)$`)));
    // After the known-tx window the pooled one is the answer, and it goes on again.
    clock.now += 20_001n;
    assert.equal(await admission.admit(tx, { origin: 'api' }), tx);
    assert.deepEqual(admitted, [
      [tx.idBase58, 'api'],
      [tx.idBase58, 'api'],
    ]);
    assert.equal(pool.size().size, 1);
    assert.equal(refused.length, 2);
  });

  it('is refused for what WE does not support yet only after the pool took it: pooled, sent on, and the client told (a confidential CreateContract V7)', async () => {
    const { clock, node, pool, admission, admitted } = door('post-pool');
    const permit = (target: Account, role: string): Transaction =>
      signed(clock, minerA, { type: 102, version: 1, target: target.b58, opType: 'add', role, fee: WEST });
    node.micro([permit(alice, 'contract_developer'), ...[minerA, minerB, minerC].map((m) => permit(m, 'contract_validator'))]);
    node.forge();
    const address = (a: Account) => p.addresses.fromPublicKey(a.keyPair.publicKey);
    const create = p.sign(
      p.transaction(CreateContract, 7, {
        senderPublicKey: alice.keyPair.publicKey,
        contractName: 'csc',
        params: [],
        fee: WEST,
        timestamp: clock.now - 1000n,
        feeAssetId: null,
        atomicBadge: null,
        validationPolicy: { type: 'any' },
        payments: [],
        isConfidential: true,
        groupParticipants: [minerA, minerB, minerC].map(address),
        groupOwners: [address(alice)],
        storedContract: { engine: 'docker', image: 'kv:1', imageHash: 'cd'.repeat(32), apiVersion: { major: 1, minor: 0 } },
      }),
      alice.keyPair.privateKey,
    );
    await assert.rejects(
      admission.admit(create, { origin: 'api' }),
      weError(199, new RegExp(`^CSC support is not enabled yet for transaction: ${create.idBase58}$`)),
    );
    assert.equal(pool.get(create.id), create, 'in the pool');
    assert.deepEqual(admitted, [[create.idBase58, 'api']], 'the miner and the peers were told');
  });
});

describe("the node's own transactions", () => {
  it('have their certificates checked only when they carry some; a client always has', async () => {
    // As PKI mode TEST: a sender the network holds no certificate for needs a chain.
    const asked: unknown[] = [];
    const policy: CertificatePolicy = {
      clientChain: (tx, certificates) => {
        asked.push(certificates);
        return certificates === undefined ? Promise.reject(certificatePathBuildError(tx.sender!.toString(), 'no chain')) : Promise.resolve(undefined);
      },
    };
    const { clock, admission, admitted } = door('own', policy);
    const own = transfer(clock, alice, bob, 1n);
    assert.equal(await admission.admit(own, { origin: 'local' }), own);
    assert.deepEqual(asked, []);
    const client = transfer(clock, alice, bob, 2n);
    await assert.rejects(admission.admit(client, { origin: 'api' }), (e: unknown) => e instanceof WeError && e.code === 120);
    const carried = transfer(clock, alice, bob, 3n);
    await admission.admit(carried, { origin: 'local', certificates: [] });
    assert.deepEqual(asked, [undefined, []]);
    assert.deepEqual(admitted, [
      [own.idBase58, 'local'],
      [carried.idBase58, 'local'],
    ]);
  });
});

describe('the dry run (/debug/validate)', () => {
  it('checks the fee and the state, without the pool, and keeps nothing', async () => {
    const { clock, pool, admission, admitted } = door('dry-run');
    const cheap = signed(clock, alice, { type: 4, version: 3, recipient: bob.b58, amount: 1n, fee: 1n, attachment: '' });
    assert.throws(() => admission.validate(cheap), weError(199, /does not exceed minimal value/));
    assert.throws(
      () => admission.validate(transfer(clock, alice, bob, 1_000_000n * WEST)),
      (e: unknown) => e instanceof WeError && e.code === 112,
    );
    // Alice's whole balance is spent by a pooled transfer: the dry run does not count the pool.
    await admission.admit(transfer(clock, alice, bob, 9_000n * WEST), { origin: 'api' });
    const second = transfer(clock, alice, bob, 9_000n * WEST);
    admission.validate(second);
    assert.equal(pool.get(second.id), undefined);
    assert.equal(pool.size().size, 1);
    assert.equal(admitted.length, 1);
  });
});

describe("peers' transactions", () => {
  it('wait for no certificate policy without one, take its verdict with one, and are admitted with the origin network', async () => {
    const plain = door('peers-plain');
    const tx = transfer(plain.clock, alice, bob, 1n);
    assert.equal(plain.admission.peerCertificateProblem(tx, []), undefined, 'nothing to wait for');
    assert.equal(plain.admission.admitFromPeer(tx, []), tx);
    assert.equal(plain.admission.admitFromPeer(tx, []), tx, 'idempotent');
    assert.deepEqual(plain.admitted, [
      [tx.idBase58, 'network'],
      [tx.idBase58, 'network'],
    ]);

    const policed = door('peers-policy', {
      clientChain: () => Promise.resolve(undefined),
      peerProblem: (_tx, certificates) => Promise.resolve(certificates.length === 0 ? 'the network holds no certificate for this key yet' : undefined),
    });
    assert.equal(
      await policed.admission.peerCertificateProblem(transfer(policed.clock, alice, bob, 1n), []),
      'the network holds no certificate for this key yet',
    );
    assert.throws(
      () => policed.admission.admitFromPeer(transfer(policed.clock, alice, bob, 1_000_000n * WEST), []),
      (e: unknown) => e instanceof WeError && e.code === 112,
    );
    assert.equal(policed.refused.length, 1, 'the pool counts its refusal');
  });
});
