/**
 * RIDE figures:
 *  - ride.verify.multisig: verifying transfers from a 2-of-3 multisig account by its
 *    script (the verifier as the chain calls it: cached script, tx bound, three sigVerify
 *    of which two are real) vs bare node:crypto Ed25519 verification of the same two
 *    signatures with ready-made Edwards keys (target ≥ 0.7);
 *  - ride.verify.multisig.pipeline: the same transfers through the node's admission pipeline
 *    (applyTransaction on a real store: the script instead of the signature, then timing,
 *    fee, permissions, balances and the transfer's state changes) vs the same baseline;
 *  - ride.compile.5KiB: compiling a 5 KiB script (ms per compile) vs @waves/ride-js 2.3.0
 *    compiling the same source in the same run (lower is better);
 *  - ride.compile.5KiB.thread: the same compile on the script compiler's thread, as
 *    `/utils/script/compile` runs it (ms per compile, the hop included) vs the same ride-js;
 *  - ride.compile.5KiB.loop: the event loop's own ms per compile on the thread (sending the
 *    source, the answer, the checksum) vs the in-process compile it used to run.
 */
import { verify as nativeVerify, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeBase58 } from '../src/crypto/encoding.js';
import type { Protocol } from '../src/protocol/protocol.js';
import { Transfer } from '../src/protocol/transactions/transfer.js';
import { compileScript } from '../src/ride/script-compiler.js';
import { ScriptCompilerPool } from '../src/ride/script-compiler-pool.js';
import { ScriptVerifier, type ScriptReads } from '../src/chain/scripts/verifier.js';
import { multisigSource } from '../devkit/ride-scripts.js';
import { applyTransaction } from '../src/chain/validation.js';
import type { KeyPair } from '../src/crypto/suite.js';
import { MutableState } from '../src/state/view.js';
import { alice, bob, TestChain } from '../devkit/chain/validation-fixture.js';
import { compareRates, median, type Figure } from './harness.js';
import { clearedSignBit, edwardsKeyObject } from './protocol.js';

const EMPTY_STATE: ScriptReads = {
  height: () => 100,
  balance: () => 0n,
  aliasOwner: () => undefined,
  dataEntry: () => undefined,
  transactionHeight: () => undefined,
  transactionById: () => undefined,
};

/** A 5 KiB script of the subset ride-js shares: many lets, a match over transaction types, data and hashing. */
export function fiveKiBSource(keys: readonly Uint8Array[]): string {
  const lines: string[] = ['{-# STDLIB_VERSION 2 #-}', '{-# CONTENT_TYPE EXPRESSION #-}'];
  for (let i = 0; i < 12; i++) lines.push(`let key${i} = base58'${encodeBase58(keys[i % keys.length]!)}'`);
  for (let i = 0; i < 12; i++) lines.push(`let limit${i} = ${1_000_000 * (i + 1)} # the ${i}th spending limit of this account`);
  lines.push('let owner = addressFromPublicKey(key0)');
  lines.push('match tx {');
  lines.push('  case t: TransferTransaction =>');
  lines.push('    let small = t.amount <= limit3 && t.fee <= limit0');
  lines.push('    let signed = sigVerify(t.bodyBytes, t.proofs[0], key1) || sigVerify(t.bodyBytes, t.proofs[0], key2)');
  lines.push('    let toOwner = t.recipient == owner');
  lines.push('    (small && signed) || (toOwner && size(t.attachment) < 64)');
  lines.push('  case m: MassTransferTransaction =>');
  lines.push('    m.transferCount <= 10 && m.totalAmount <= limit5 && sigVerify(m.bodyBytes, m.proofs[0], key3)');
  lines.push('  case d: DataTransaction =>');
  lines.push('    let counter = extract(getInteger(d.data, "counter"))');
  lines.push('    let label = getString(d.data, "label")');
  lines.push('    counter > 0 && counter < limit1 && isDefined(label) && sigVerify(d.bodyBytes, d.proofs[0], key4)');
  lines.push('  case s: SetScriptTransaction =>');
  lines.push('    sigVerify(s.bodyBytes, s.proofs[0], key5) && sigVerify(s.bodyBytes, s.proofs[1], key6)');
  lines.push('  case i: IssueTransaction =>');
  lines.push('    i.quantity <= limit11 && i.decimals <= 8 && toBase58String(take(sha256(i.name), 4)) != ""');
  lines.push('  case l: LeaseTransaction => l.amount <= limit7 && sigVerify(l.bodyBytes, l.proofs[0], key7)');
  lines.push('  case c: LeaseCancelTransaction => sigVerify(c.bodyBytes, c.proofs[0], key8)');
  lines.push('  case a: CreateAliasTransaction => size(a.alias) > 4 && take(a.alias, 3) != "adm"');
  lines.push('  case b: BurnTransaction => b.quantity <= limit2');
  lines.push('  case r: ReissueTransaction => r.quantity <= limit9 && !r.reissuable');
  lines.push('  case _ => false');
  lines.push('}');
  let source = lines.join('\n');
  // Pad with comments up to 5 KiB.
  while (source.length < 5 * 1024) source += '\n# an explanation of the spending policy, kept with the script for its reviewers';
  return source.slice(0, 5 * 1024 + 80);
}

export async function rideFigures(p: Protocol): Promise<Figure[]> {
  const figures: Figure[] = [];
  const verifier = await ScriptVerifier.create(p);

  // 1. A 2-of-3 multisig account: transfers carry alice's and bob's proofs.
  const signers = [0, 1, 2].map((i) => p.crypto.keyPairFromSeedPhrase(`bench multisig signer ${i}`));
  const account = p.crypto.keyPairFromSeedPhrase('bench multisig account');
  const compiled = compileScript(multisigSource(signers.map((s) => encodeBase58(s.publicKey))), { assetScript: false, crypto: p });
  if (!compiled.ok) throw new Error(compiled.error);
  const script = compiled.script.bytes;
  const COUNT = 64;
  const txs = Array.from({ length: COUNT }, (_, i) => {
    const unsigned = p.transaction(Transfer, 3, {
      senderPublicKey: account.publicKey,
      assetId: null,
      feeAssetId: null,
      timestamp: 1_700_000_000_000n + BigInt(i),
      amount: 100n + BigInt(i),
      fee: 1_000_000n,
      recipient: p.addresses.fromPublicKey(signers[0]!.publicKey),
      attachment: new Uint8Array(0),
      atomicBadge: null,
    });
    return unsigned.withProofs([p.crypto.sign(signers[0]!.privateKey, unsigned.bodyBytes), p.crypto.sign(signers[1]!.privateKey, unsigned.bodyBytes)]);
  });
  const edKeys = [edwardsKeyObject(signers[0]!.privateKey), edwardsKeyObject(signers[1]!.privateKey)];
  const bare = txs.map((tx) => ({ message: tx.bodyBytes, sigs: tx.proofs.map(clearedSignBit) }));
  let k = 0;
  let accepted = 0;
  figures.push(
    compareRates(
      'ride.verify.multisig',
      'node:crypto Ed25519 verify ×2 /s',
      () => {
        verifier.verifyTx(txs[k++ % COUNT]!, script, EMPTY_STATE, false);
        accepted++;
      },
      () => {
        const b = bare[k++ % COUNT]!;
        if (nativeVerify(null, b.message, edKeys[0]!, b.sigs[0]!) && nativeVerify(null, b.message, edKeys[1]!, b.sigs[1]!)) accepted++;
      },
      { unit: 'verify/s', target: 0.7 },
    ),
  );
  if (accepted === 0) throw new Error('nothing verified');
  figures.push(await pipelineFigure(signers, edKeys));

  // 2. Compiling a 5 KiB script, Weft vs ride-js on the same source.
  const rideJs = createRequire(import.meta.url)('@waves/ride-js') as { compile(code: string): { result?: { base64: string }; error?: string } };
  const keys = Array.from({ length: 12 }, (_, i) => p.crypto.keyPairFromSeedPhrase(`bench compile key ${i}`).publicKey);
  const source = fiveKiBSource(keys);
  // WE's directive for Weft, the public chain's for ride-js: the same version-2 script.
  const weSource = source.replace('{-# STDLIB_VERSION 2 #-}', '{-# LANGUAGE_VERSION 2 #-}');
  const ours = compileScript(weSource, { assetScript: false, crypto: p });
  const theirs = rideJs.compile(source);
  if (!ours.ok) throw new Error(`5 KiB script: ${ours.error}`);
  if (theirs.result?.base64 !== Buffer.from(ours.script.bytes).toString('base64'))
    throw new Error(`ride-js disagrees on the 5 KiB script: ${theirs.error ?? 'other bytes'}`);
  const rates = compareRates(
    'ride.compile.5KiB',
    'ride-js 2.3.0 compile',
    () => void compileScript(weSource, { assetScript: false, crypto: p }),
    () => void rideJs.compile(source),
    { unit: 'compile/s', rounds: 3, msPerRound: 500 },
  );
  // Reported in milliseconds per compile (lower is better; the ratio is ours ÷ ride-js).
  const inProcess = {
    name: 'ride.compile.5KiB',
    value: 1000 / rates.value,
    baseline: 1000 / rates.baseline,
    ratio: rates.baseline / rates.value,
    unit: 'ms',
    baselineLabel: 'ride-js 2.3.0 ms',
  };
  figures.push(inProcess);
  figures.push(...(await threadCompileFigures(weSource, Buffer.from(ours.script.bytes).toString('base64'), p, inProcess)));
  return figures;
}

/**
 * The same compile as `/utils/script/compile` runs it, on the script compiler's thread
 *, one after another on a warm thread: ms per compile vs ride-js (the hop's cost
 * is this figure less ride.compile.5KiB's), and the event loop's own ms per compile (its
 * active time over the run, per compile) vs the in-process compile it no longer runs.
 */
async function threadCompileFigures(source: string, expected: string, p: Protocol, inProcess: Figure): Promise<Figure[]> {
  const threads = new ScriptCompilerPool();
  try {
    const first = await threads.compile(source, { assetScript: false, crypto: p });
    if (!first.ok || Buffer.from(first.script.bytes).toString('base64') !== expected)
      throw new Error(`the compiler thread disagrees on the 5 KiB script: ${first.ok ? 'other bytes' : first.error}`);
    const wall: number[] = [];
    const loop: number[] = [];
    for (let round = 0; round < 3; round++) {
      const busy = performance.eventLoopUtilization();
      const start = performance.now();
      let n = 0;
      while (performance.now() - start < 500) {
        if (!(await threads.compile(source, { assetScript: false, crypto: p })).ok) throw new Error('the compiler thread refused the 5 KiB script');
        n++;
      }
      wall.push((performance.now() - start) / n);
      loop.push(performance.eventLoopUtilization(busy).active / n);
    }
    const thread = median(wall);
    const loopMs = median(loop);
    return [
      {
        name: 'ride.compile.5KiB.thread',
        value: thread,
        baseline: inProcess.baseline,
        ratio: thread / inProcess.baseline,
        unit: 'ms',
        baselineLabel: 'ride-js 2.3.0 ms',
      },
      {
        name: 'ride.compile.5KiB.loop',
        value: loopMs,
        baseline: inProcess.value,
        ratio: loopMs / inProcess.value,
        unit: 'ms',
        baselineLabel: 'in-process compile ms',
      },
    ];
  } finally {
    await threads.close();
  }
}

/** Multisig transfers through applyTransaction on a store (each validated and applied to a throw-away layer) vs the bare verifications. */
async function pipelineFigure(signers: readonly KeyPair[], edKeys: readonly KeyObject[]): Promise<Figure> {
  const directory = mkdtempSync(join(tmpdir(), 'weft-bench-ride-'));
  const c = TestChain.open({ directory });
  try {
    const fp = c.store.protocol;
    const compiled = compileScript(multisigSource(signers.map((s) => encodeBase58(s.publicKey))), { assetScript: false, crypto: fp });
    if (!compiled.ok) throw new Error(compiled.error);
    c.apply(
      c.tx(alice, {
        type: 13,
        version: 1,
        script: `base64:${Buffer.from(compiled.script.bytes).toString('base64')}`,
        name: 'multisig',
        description: '',
        fee: 50_000_000n,
      }),
    );
    const COUNT = 64;
    const txs = Array.from({ length: COUNT }, (_, i) => {
      const unsigned = c.tx(alice, { type: 4, version: 2, recipient: bob.b58, amount: 100n + BigInt(i), fee: 1_000_000n, attachment: '' });
      return unsigned.withProofs([
        fp.crypto.sign(signers[0]!.privateKey, unsigned.proofSourceBytes),
        fp.crypto.sign(signers[1]!.privateKey, unsigned.proofSourceBytes),
      ]);
    });
    const ctx = c.ctx();
    const bare = txs.map((tx) => ({ message: tx.bodyBytes, sigs: tx.proofs.map(clearedSignBit) }));
    let k = 0;
    let accepted = 0;
    const figure = compareRates(
      'ride.verify.multisig.pipeline',
      'node:crypto Ed25519 verify ×2 /s',
      () => {
        applyTransaction(new MutableState(c.store), txs[k++ % COUNT]!, ctx);
        accepted++;
      },
      () => {
        const b = bare[k++ % COUNT]!;
        if (nativeVerify(null, b.message, edKeys[0]!, b.sigs[0]!) && nativeVerify(null, b.message, edKeys[1]!, b.sigs[1]!)) accepted++;
      },
      { unit: 'tx/s' },
    );
    if (accepted === 0) throw new Error('nothing applied');
    return figure;
  } finally {
    await c.close();
    rmSync(directory, { recursive: true, force: true });
  }
}
