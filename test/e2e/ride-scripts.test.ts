/**
 * RIDE through a real node process: scripts compiled by `POST /utils/script/compile`,
 * set on an account by a SetScript built and signed with transactions-factory, read back
 * by `/addresses/scriptInfo` and `/utils/script/estimate`; an asset issued with a script
 * compiled in the asset context, read back by `/assets/details?full=true`; bad scripts
 * refused at broadcast. What the chain then enforces (306/307) is ride-enforcement.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEV_SEEDS } from '../../src/cli/dev.js';
import { assertError, broadcast, Clock, confirmed, signer, tf2Build, WEST, type Signer } from './clients.js';
import { multisigSource } from '../../devkit/ride-scripts.js';
import { NodeFleet, type DevNode } from './support.js';

const fleet = new NodeFleet();
const clock = new Clock();

describe('RIDE scripts end to end', { timeout: 90_000 }, () => {
  let node: DevNode;
  let a0: Signer, a1: Signer, a2: Signer, a3: Signer;

  before(async () => {
    node = await fleet.start();
    [a0, a1, a2, a3] = (await Promise.all(DEV_SEEDS.slice(0, 4).map((s) => signer(s)))) as [Signer, Signer, Signer, Signer];
  });

  after(() => {
    if (node?.running) node.kill();
  });

  const compile = (source: string, query = '') => node.post(`/utils/script/compile${query}`, source, { contentType: 'text/plain' });

  it('compiles a 2-of-3 multisig, sets it on an account and reads it back as WE does', async () => {
    const source = multisigSource([a0.publicKey, a1.publicKey, a2.publicKey]);
    const compiled = await compile(source);
    assert.equal(compiled.status, 200, compiled.text);
    assert.deepEqual(Object.keys(compiled.json), ['script', 'complexity', 'extraFee']);
    const script = compiled.json.script as string;
    assert.match(script, /^base64:/);
    assert.equal(compiled.json.extraFee, 0);

    const setScript = await tf2Build(
      'SetScript',
      1,
      { chainId: 84, script, name: 'multisig 2 of 3', description: 'e2e', fee: Number(WEST) / 2, timestamp: clock.next() },
      a3,
    );
    await broadcast(node, setScript);
    await confirmed(node, setScript.id);

    const estimate = await node.post('/utils/script/estimate', script, { contentType: 'text/plain' });
    assert.equal(estimate.status, 200, estimate.text);
    assert.equal(estimate.json.complexity, compiled.json.complexity);
    assert.match(
      estimate.json.scriptText as string,
      /^BLOCK\(LET\(alicePubKey,CONST_BYTEVECTOR\(ByteVector\(32 bytes, 0x[0-9a-f]{64}\)\)\),BLOCK\(LET\(bobPubKey,/,
    );

    const info = await node.get(`/addresses/scriptInfo/${a3.address}`);
    assert.equal(info.status, 200, info.text);
    assert.deepEqual(info.json, { address: a3.address, script, scriptText: estimate.json.scriptText, complexity: compiled.json.complexity, extraFee: 0 });
    const none = await node.get(`/addresses/scriptInfo/${a2.address}`);
    assert.deepEqual(none.json, { address: a2.address, complexity: 0, extraFee: 0 });
  });

  it('issues an asset with a script compiled in the asset context; full details show it', async () => {
    const source = `match tx {\n case t: TransferTransaction => t.recipient != Address(base58'${a2.address}')\n case _ => true\n}`;
    const asset = await compile(source, '?assetScript=true');
    assert.equal(asset.status, 200, asset.text);
    // The same source in the asset context has no proofs to read.
    const proofs = await compile(`match tx {\n case t: TransferTransaction => size(t.proofs) == 8\n case _ => true\n}`, '?assetScript=true');
    assertError(proofs, 400, 305, /^Compilation failed: Undefined field `proofs` of variable of type `Union\(List\(TransferTransaction\)\)` in \d+-\d+$/);

    const issue = await tf2Build(
      'Issue',
      2,
      {
        chainId: 84,
        name: 'Smart E2E',
        description: 'blacklist',
        quantity: 1_000_000,
        decimals: 0,
        reissuable: true,
        fee: Number(WEST),
        timestamp: clock.next(),
        script: asset.json.script,
      },
      a0,
    );
    await broadcast(node, issue);
    await confirmed(node, issue.id);
    const details = await node.get(`/assets/details/${issue.id}?full=true`);
    assert.equal(details.status, 200, details.text);
    assert.equal(details.json.scripted, true);
    assert.deepEqual(details.json.scriptDetails, {
      scriptComplexity: asset.json.complexity,
      script: asset.json.script,
      scriptText: (await node.post('/utils/script/estimate', asset.json.script, { contentType: 'text/plain' })).json.scriptText,
    });
    const plain = await node.get(`/assets/details/${issue.id}`);
    assert.equal(plain.json.scriptDetails, undefined);
  });

  it('refuses bad scripts: compile errors (305) and unreadable scripts at broadcast (199)', async () => {
    assertError(await compile('tx.fee > 0'), 400, 305, /^Compilation failed: Undefined field `fee` of variable of type `Union\(List\(Order, /);
    assertError(await compile('{-# LANGUAGE_VERSION 2 #-}\nBuy'), 400, 305, 'Script should return boolean');
    assertError(await compile(`${'('.repeat(500)}true${')'.repeat(500)}`), 400, 305, 'Script is too deeply nested: more than 150 nested expressions');
    const broken = await tf2Build(
      'SetScript',
      1,
      { chainId: 84, script: 'base64:AQa3b8tI', name: 'broken', description: '', fee: Number(WEST) / 2, timestamp: clock.next() },
      a2,
    );
    assertError(await node.post('/transactions/broadcast', broken.json), 400, 199, 'ScriptParseError(Invalid checksum)');
  });
});
