/**
 * Scripts enforced by a real node process on the dev chain, with transactions built and
 * signed by transactions-factory as client applications do:
 *
 * - a 2-of-3 multisig account spends only with two valid proofs (307 with the forced lets
 *   for one proof, a forged one, or the account's own signature);
 * - a time-locked account (`height >= H`) refuses before H and accepts the same
 *   transaction from H on;
 * - a smart asset whose script forbids transfers to a blacklisted address and bounds
 *   reissues and burns (307 token-script);
 * - a script that throws (306 with its message and vars), a FALSE script (307);
 * - invalid scripts refused at SetScript with WE's errors;
 * - after POST /debug/rollback with returnTransactionsToUtx the node re-validates: what
 *   was accepted comes back and is mined again, the time-locked transfer (now before its
 *   height again) is refused again, and accepted once the chain is at H.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeBase64 } from '../../src/crypto/encoding.js';
import { DEV_SEEDS, devProtocol } from '../../src/cli/dev.js';
import { E, type Expr } from '../../src/ride/expr.js';
import { scriptBytes } from '../../src/ride/script.js';
import { multisigSource } from '../../devkit/ride-scripts.js';
import { assertError, assertNowhere, broadcast, Clock, confirmed, describeAnswer, signer, tf2Build, WEST, type Built, type Signer } from './clients.js';
import { NodeFleet, until, type Answer, type DevNode } from './support.js';

const fleet = new NodeFleet();
const clock = new Clock();

const FEE = { transfer: 1_000_000, setScript: 50_000_000, issue: Number(WEST), reissue: Number(WEST), burn: 5_000_000, data: 5_000_000 };
/** The known-transaction window: a broadcast accepted once is refused as AlreadyInProcessing for this long. */
const KNOWN_TX_CACHE_MS = 20_000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('RIDE scripts enforced on the dev chain', { timeout: 240_000 }, () => {
  let node: DevNode;
  let a0: Signer, a1: Signer, a2: Signer, a3: Signer, a4: Signer;
  /** The multisig's three keys: none of them is the account's. */
  let keys: Signer[];

  before(async () => {
    node = await fleet.start();
    [a0, a1, a2, a3, a4] = (await Promise.all(DEV_SEEDS.slice(0, 5).map((s) => signer(s)))) as [Signer, Signer, Signer, Signer, Signer];
    keys = await Promise.all([0, 1, 2].map((i) => signer(`weft e2e multisig key ${i}`)));
  });

  after(() => {
    if (node?.running) node.kill();
  });

  const height = async (): Promise<number> => (await node.get('/blocks/height')).json.height as number;
  const atHeight = (h: number, timeoutMs = 60_000): Promise<number> =>
    until(`height ${h}`, async () => ((await height()) >= h ? height() : undefined), timeoutMs, 200);
  const compile = async (source: string, assetScript = false): Promise<{ script: string; scriptText: string }> => {
    const r = await node.post(`/utils/script/compile${assetScript ? '?assetScript=true' : ''}`, source, { contentType: 'text/plain' });
    assert.equal(r.status, 200, describeAnswer(r));
    const estimate = await node.post('/utils/script/estimate', r.json.script, { contentType: 'text/plain' });
    assert.equal(estimate.status, 200, describeAnswer(estimate));
    return { script: r.json.script as string, scriptText: estimate.json.scriptText as string };
  };
  const setScript = (account: Signer, script: string, name: string): Promise<Built> =>
    tf2Build('SetScript', 1, { chainId: 84, script, name, description: 'ride enforcement e2e', fee: FEE.setScript, timestamp: clock.next() }, account);
  const transfer = (from: Signer, to: string, amount: number, proofsBy: readonly Signer[] = [from], assetId?: string): Promise<Built> =>
    tf2Build(
      'Transfer',
      3,
      { recipient: to, amount, fee: FEE.transfer, timestamp: clock.next(), attachment: '', ...(assetId === undefined ? {} : { assetId }) },
      from,
      proofsBy,
    );
  const send = (built: Built): Promise<Answer> => node.post('/transactions/broadcast', built.json);
  const westOf = async (s: Signer): Promise<bigint> => BigInt((await node.get(`/addresses/balance/${s.address}`)).json.balance as number);

  /** A 306/307 answer as WE renders it: the code and message, this transaction, the script's text, and the vars. */
  function assertScriptRejection(
    r: Answer,
    code: 306 | 307,
    message: string,
    built: Built,
    scriptText: string,
  ): Array<{ name: string; value?: string; error?: string }> {
    assertError(r, 400, code, message);
    assert.deepEqual(Object.keys(r.json).sort(), ['error', 'message', 'script', 'transaction', 'vars']);
    assert.equal(r.json.transaction.id, built.id);
    assert.deepEqual(r.json.transaction.proofs, built.json['proofs']);
    assert.equal(r.json.script, scriptText);
    assert.ok(Array.isArray(r.json.vars));
    return r.json.vars as Array<{ name: string; value?: string }>;
  }

  it("refuses invalid scripts at SetScript with WE's errors", async () => {
    const protocol = await devProtocol();
    const raw = (expr: Expr): string => `base64:${encodeBase64(scriptBytes(1, expr, protocol))}`;
    const sig = E.native(500, E.bytes([1]), E.bytes([2]), E.bytes([3]));
    let heavy: Expr = sig;
    for (let i = 0; i < 20; i++) heavy = E.if(sig, heavy, E.FALSE);
    assertError(await send(await setScript(a1, raw(heavy), 'too complex')), 400, 199, /^ScriptParseError\(Script is too complex: \d+ > 2000\)$/);
    assertError(
      await send(await setScript(a1, raw(E.native(999, E.TRUE)), 'unknown')),
      400,
      199,
      "ScriptParseError(ScriptValidator: Unknown function 'Native(999)')",
    );
    const checksum = raw(E.TRUE).replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    assertError(await send(await setScript(a1, checksum, 'checksum')), 400, 199, 'ScriptParseError(Invalid checksum)');
    // A script that does not compile never gets bytes; an account holding roles may not take one.
    const bad = await node.post('/utils/script/compile', 'height >= ', { contentType: 'text/plain' });
    assertError(bad, 400, 305, /^Compilation failed: /);
    const owner = await send(await setScript(a0, (await compile('true')).script, 'owner'));
    assertError(owner, 400, 112, 'State check failed. Reason: Script cannot be assigned to an account with a role other than contract_developer!');
    // None of them set anything.
    for (const s of [a0, a1]) assert.deepEqual((await node.get(`/addresses/scriptInfo/${s.address}`)).json, { address: s.address, complexity: 0, extraFee: 0 });
  });

  it('enforces multisig, time lock, smart asset, throwing and FALSE scripts — and decides the same after a rollback', async () => {
    // --- The scripts, set at heights up to T.
    const h0 = await height();
    const unlockAt = h0 + 5;
    const multisig = await compile(multisigSource(keys.map((k) => k.publicKey)));
    const timeLock = await compile(`height >= ${unlockAt}`);
    const throwing = await compile(`
let limit = ${Number(WEST)}
match tx {
  case t: TransferTransaction => if (t.amount > limit) then throw("transfers above 1 WEST need the board") else sigVerify(t.bodyBytes, t.proofs[0], t.senderPublicKey)
  case _ => sigVerify(tx.bodyBytes, tx.proofs[0], tx.senderPublicKey)
}`);
    const closed = await compile('false');
    const token = await compile(
      `match tx {
  case t: TransferTransaction => t.recipient != Address(base58'${a4.address}')
  case r: ReissueTransaction => r.quantity <= 1000
  case b: BurnTransaction => b.quantity <= 100
  case _ => true
}`,
      true,
    );
    const setup = [
      await setScript(a1, multisig.script, 'multisig 2 of 3'),
      await setScript(a2, timeLock.script, 'time lock'),
      await setScript(a3, throwing.script, 'limit'),
      await setScript(a4, closed.script, 'closed'),
      await tf2Build(
        'Issue',
        2,
        {
          chainId: 84,
          name: 'Blacklist',
          description: 'no transfers to a4',
          quantity: 1_000_000,
          decimals: 0,
          reissuable: true,
          fee: FEE.issue,
          timestamp: clock.next(),
          script: token.script,
        },
        a0,
      ),
    ];
    for (const b of setup) await broadcast(node, b);
    const T = Math.max(...(await Promise.all(setup.map(async (b) => (await confirmed(node, b.id)).height as number))));
    const asset = setup[4]!.id;
    assert.ok(T + 2 < unlockAt, `the scripts were confirmed at ${T}, too close to the unlock height ${unlockAt} for this test`);
    const a1AtT = await westOf(a1);
    // What follows goes into blocks above T, which the rollback removes.
    await atHeight(T + 1);

    // --- Multisig: two of the three keys, not one, not a forged one, not the account's own signature.
    const spend = await transfer(a1, a2.address, Number(2n * WEST), [keys[0]!, keys[1]!]);
    await broadcast(node, spend);
    const oneProof = await transfer(a1, a2.address, Number(WEST), [keys[0]!]);
    const vars = assertScriptRejection(await send(oneProof), 307, 'Transaction is not allowed by account-script', oneProof, multisig.scriptText);
    const value = (name: string): string | undefined => vars.find((v) => v.name === name)?.value;
    assert.equal(value('aliceSigned'), 'CONST_LONG(1)');
    assert.equal(value('bobSigned'), 'CONST_LONG(0)');
    assert.equal(value('cooperSigned'), 'CONST_LONG(0)');
    const forged = await transfer(a1, a2.address, Number(WEST), [keys[0]!, a2]);
    assertScriptRejection(await send(forged), 307, 'Transaction is not allowed by account-script', forged, multisig.scriptText);
    const own = await transfer(a1, a2.address, Number(WEST));
    assertScriptRejection(await send(own), 307, 'Transaction is not allowed by account-script', own, multisig.scriptText);

    // --- Time lock: refused before its height.
    const locked = await transfer(a2, a3.address, Number(WEST));
    const early = await send(locked);
    const heightAfterEarly = await height();
    assert.ok(heightAfterEarly < unlockAt, `the chain reached ${heightAfterEarly} before the early attempt was answered`);
    assert.deepEqual(assertScriptRejection(early, 307, 'Transaction is not allowed by account-script', locked, timeLock.scriptText), []);
    assert.equal(timeLock.scriptText, `FUNCTION_CALL(Native(103),List(REF(height), CONST_LONG(${unlockAt})))`);

    // --- The smart asset: transfers to anyone but a4, bounded reissue and burn.
    const toA2 = await transfer(a0, a2.address, 10, [a0], asset);
    await broadcast(node, toA2);
    const toA4 = await transfer(a0, a4.address, 10, [a0], asset);
    assertScriptRejection(await send(toA4), 307, 'Transaction is not allowed by token-script', toA4, token.scriptText);
    await confirmed(node, toA2.id);
    const fromA2 = await transfer(a2, a4.address, 1, [a2], asset);
    assertError(await send(fromA2), 400, 307);
    const reissue = (quantity: number) =>
      tf2Build('Reissue', 2, { chainId: 84, assetId: asset, quantity, reissuable: true, fee: FEE.reissue, timestamp: clock.next() }, a0);
    const burn = (amount: number) => tf2Build('Burn', 2, { chainId: 84, assetId: asset, amount, fee: FEE.burn, timestamp: clock.next() }, a0);
    const bigReissue = await reissue(1001);
    assertScriptRejection(await send(bigReissue), 307, 'Transaction is not allowed by token-script', bigReissue, token.scriptText);
    const okReissue = await reissue(1000);
    await broadcast(node, okReissue);
    const bigBurn = await burn(101);
    assertScriptRejection(await send(bigBurn), 307, 'Transaction is not allowed by token-script', bigBurn, token.scriptText);
    const okBurn = await burn(100);
    await broadcast(node, okBurn);

    // --- A script that throws (306) and one that answers FALSE (307).
    const tooMuch = await transfer(a3, a1.address, Number(2n * WEST));
    const thrown = assertScriptRejection(
      await send(tooMuch),
      306,
      'Error while executing account-script: transfers above 1 WEST need the board',
      tooMuch,
      throwing.scriptText,
    );
    assert.deepEqual(
      thrown.map((v) => v.name),
      ['$match0', 't', 'limit'],
    );
    assert.equal(thrown.find((v) => v.name === 'limit')?.value, `CONST_LONG(${Number(WEST)})`);
    const small = await transfer(a3, a1.address, Number(WEST / 2n));
    await broadcast(node, small);
    const data = await tf2Build(
      'Data',
      2,
      { authorPublicKey: a4.publicKey, data: [{ key: 'k', type: 'integer', value: 1 }], fee: FEE.data, timestamp: clock.next() },
      a4,
    );
    assert.deepEqual(assertScriptRejection(await send(data), 307, 'Transaction is not allowed by account-script', data, 'FALSE'), []);

    // --- The time lock from its height on: the very transaction refused before.
    await atHeight(unlockAt);
    const lockedAccepted = Date.now();
    await broadcast(node, locked);
    const accepted = [spend, toA2, okReissue, okBurn, small, locked];
    for (const b of accepted) assert.ok(((await confirmed(node, b.id)).height as number) > T, `${b.id} is above T`);
    const lockedHeight = (await confirmed(node, locked.id)).height as number;
    assert.ok(lockedHeight >= unlockAt);

    // --- Rollback to T, the removed transactions offered back to the pool.
    const targetBlock = await node.get(`/blocks/at/${T}`);
    const rollback = await node.post('/debug/rollback', { rollbackTo: T, returnTransactionsToUtx: true }, { apiKey: 'weft-dev-api-key' });
    assert.equal(rollback.status, 200, describeAnswer(rollback));
    assert.deepEqual(rollback.json, { BlockId: targetBlock.json.signature });
    // Re-validated on the state at T: the time-locked transfer is before its height again and is not taken back.
    await assertNowhere(node, locked.id);
    const stillEarly = await transfer(a2, a3.address, Number(WEST));
    assertScriptRejection(await send(stillEarly), 307, 'Transaction is not allowed by account-script', stillEarly, timeLock.scriptText);
    assert.ok((await height()) < unlockAt, 'the refusal after the rollback came before the unlock height');
    // What the scripts accepted is accepted again and mined again, once; what they refused is still refused.
    for (const b of [spend, toA2, okReissue, okBurn, small]) assert.ok(((await confirmed(node, b.id)).height as number) > T, `${b.id} mined again above ${T}`);
    assertScriptRejection(await send(oneProof), 307, 'Transaction is not allowed by account-script', oneProof, multisig.scriptText);
    assertScriptRejection(await send(toA4), 307, 'Transaction is not allowed by token-script', toA4, token.scriptText);
    assertScriptRejection(
      await send(tooMuch),
      306,
      'Error while executing account-script: transfers above 1 WEST need the board',
      tooMuch,
      throwing.scriptText,
    );
    // At the unlock height (and past the known-transaction window of its first broadcast) it is accepted again.
    await atHeight(unlockAt);
    const wait = lockedAccepted + KNOWN_TX_CACHE_MS + 500 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await broadcast(node, locked);
    assert.ok(((await confirmed(node, locked.id)).height as number) >= unlockAt);

    // Each accepted transaction applied once.
    await until('the pool to be empty', async () => ((await node.get('/transactions/unconfirmed/size')).json.size === 0 ? true : undefined), 15_000);
    assert.equal(await westOf(a1), a1AtT - 2n * WEST - BigInt(FEE.transfer) + WEST / 2n);
    const details: Json = (await node.get(`/assets/details/${asset}`)).json;
    assert.equal(details.quantity, 1_000_000 + 1000 - 100);
    assert.equal(BigInt((await node.get(`/assets/balance/${a2.address}/${asset}`)).json.balance as number), 10n);
  });
});
