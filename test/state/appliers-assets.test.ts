import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeBase58, encodeBase64 } from '../../src/crypto/encoding.js';
import { INT64 } from '../../src/protocol/bytes.js';
import { E } from '../../src/ride/expr.js';
import { scriptBytes } from '../../src/ride/script.js';
import { DEFAULT_FEES } from '../../src/chain/settings.js';
import { alice, allFeaturesAt, assertRejected, bob, p, root, scf, TestChain, WEST, type Account } from '../../devkit/chain/validation-fixture.js';

const TRUE_SCRIPT = `base64:${encodeBase64(scriptBytes(1, E.TRUE, p))}`;
const FALSE_SCRIPT = `base64:${encodeBase64(scriptBytes(1, E.FALSE, p))}`;

function issueTx(c: TestChain, by: Account, over: Record<string, unknown> = {}) {
  return c.tx(by, { type: 3, version: 2, name: 'Gold', description: 'shiny', quantity: 1_000n, decimals: 2, reissuable: true, fee: WEST, ...over });
}

const give = (c: TestChain, assetId: Uint8Array, to: Account, amount: bigint) =>
  c.apply(c.tx(root, { type: 4, version: 2, recipient: to.b58, amount, fee: 1_000_000n, attachment: '', assetId: encodeBase58(assetId) }));

const permit = (c: TestChain, target: Account, role: string) =>
  c.apply(c.tx(root, { type: 102, version: 1, target: target.b58, opType: 'add', role, fee: 1_000_000n }));

describe('Issue applier', () => {
  it('creates the asset with its id, info and the whole quantity for the issuer', () => {
    const c = TestChain.open();
    const tx = issueTx(c, root, { script: TRUE_SCRIPT });
    const height = c.nextHeight;
    c.apply(tx);
    const asset = c.store.asset(tx.id);
    assert.ok(asset !== undefined);
    assert.deepEqual(Uint8Array.from(asset.issuer), Uint8Array.from(root.publicKey));
    assert.equal(Buffer.from(asset.name).toString(), 'Gold');
    assert.equal(Buffer.from(asset.description).toString(), 'shiny');
    assert.equal(asset.height, height);
    assert.equal(asset.timestamp, tx.timestamp);
    assert.equal(asset.decimals, 2);
    assert.equal(asset.reissuable, true);
    assert.equal(asset.volume, 1_000n);
    assert.ok(asset.script !== null && asset.script.length > 0);
    assert.equal(asset.sponsorship, false);
    assert.equal(c.assetBalance(root, tx.id), 1_000n);
    assert.equal(c.west(root), 1_000_000n * WEST - WEST);
  });

  it('needs the issuer role', () => {
    const c = TestChain.open();
    assertRejected(c.reject(issueTx(c, alice)), 112, scf(`PermissionError(Sender ${alice.b58} permission validation failed: Has no active 'issuer' role)`));
  });
});

describe('Reissue applier', () => {
  const reissue = (c: TestChain, by: Account, assetId: Uint8Array, quantity: bigint, reissuable = true) =>
    c.tx(by, { type: 5, version: 2, assetId: encodeBase58(assetId), quantity, reissuable, fee: WEST });

  it('adds to the volume and the issuer balance; reissuable only stays true if both say so', () => {
    const c = TestChain.open();
    const tx = issueTx(c, root);
    c.apply(tx);
    c.apply(reissue(c, root, tx.id, 500n, false));
    assert.equal(c.store.asset(tx.id)?.volume, 1_500n);
    assert.equal(c.store.asset(tx.id)?.reissuable, false);
    assert.equal(c.assetBalance(root, tx.id), 1_500n);
    assertRejected(c.reject(reissue(c, root, tx.id, 1n)), 112, scf('Asset is not reissuable'));
  });

  it('refuses an unknown asset, another issuer and an overflowing volume', () => {
    const c = TestChain.open();
    const tx = issueTx(c, root, { quantity: INT64.MAX - 10n });
    c.apply(tx);
    assertRejected(c.reject(reissue(c, root, new Uint8Array(32).fill(1), 1n)), 112, scf('Referenced assetId not found'));
    permit(c, alice, 'issuer');
    assertRejected(c.reject(reissue(c, alice, tx.id, 1n)), 112, scf('Asset was issued by other address'));
    assertRejected(c.reject(reissue(c, root, tx.id, 11n)), 112, scf('Asset total value overflow'));
  });
});

describe('Burn applier', () => {
  const burn = (c: TestChain, by: Account, assetId: Uint8Array, amount: bigint) =>
    c.tx(by, { type: 6, version: 2, assetId: encodeBase58(assetId), amount, fee: 5_000_000n });

  it('lets any holder burn (Burn Any Tokens) and lowers the volume', () => {
    const c = TestChain.open();
    const tx = issueTx(c, root);
    c.apply(tx);
    give(c, tx.id, alice, 100n);
    c.apply(burn(c, alice, tx.id, 40n));
    assert.equal(c.assetBalance(alice, tx.id), 60n);
    assert.equal(c.store.asset(tx.id)?.volume, 960n);
    assert.equal(c.west(alice), 1_000n * WEST - 5_000_000n);
  });

  it('refuses burning more than held, with WE balance errors', () => {
    const c = TestChain.open();
    const tx = issueTx(c, root);
    c.apply(tx);
    give(c, tx.id, alice, 10n);
    const id = encodeBase58(tx.id);
    assertRejected(
      c.reject(burn(c, alice, tx.id, 15n)),
      112,
      scf(`Account errors: ${alice.b58} -> address '${alice.b58}' balance validation errors: [negative asset balance: [asset: '${id}' -> balance: '-5']]`),
    );
  });

  it('only the issuer burns before Burn Any Tokens', () => {
    const features = allFeaturesAt(0);
    features.delete(6);
    const c = TestChain.open({ features });
    const tx = issueTx(c, root);
    c.apply(tx);
    give(c, tx.id, alice, 10n);
    assertRejected(c.reject(burn(c, alice, tx.id, 1n)), 112, scf('Asset was issued by other address'));
    c.apply(burn(c, root, tx.id, 1n));
  });
});

describe('SponsorFee applier', () => {
  const sponsor = (c: TestChain, by: Account, assetId: Uint8Array, isEnabled: boolean) =>
    c.tx(by, { type: 14, version: 1, assetId: encodeBase58(assetId), isEnabled, fee: WEST });

  it('turns sponsorship on and off for the issuer', () => {
    const c = TestChain.open();
    const tx = issueTx(c, root);
    c.apply(tx);
    c.apply(sponsor(c, root, tx.id, true));
    assert.equal(c.store.asset(tx.id)?.sponsorship, true);
    c.apply(sponsor(c, root, tx.id, false));
    assert.equal(c.store.asset(tx.id)?.sponsorship, false);
    assert.equal(c.west(root), 1_000_000n * WEST - 3n * WEST);
  });

  it('refuses another sender and a smart asset', () => {
    const c = TestChain.open({ fees: { ...DEFAULT_FEES, enabled: false } });
    const tx = issueTx(c, root);
    c.apply(tx);
    assertRejected(c.reject(sponsor(c, alice, tx.id, true)), 112, scf('Asset was issued by other address'));
    const smart = issueTx(c, root, { script: TRUE_SCRIPT, name: 'Smart' });
    c.apply(smart);
    assertRejected(c.reject(sponsor(c, root, smart.id, true)), 112, /smart asset/);
  });
});

describe('SetAssetScript applier', () => {
  const setAssetScript = (c: TestChain, by: Account, assetId: Uint8Array, script: string | null) =>
    c.tx(by, { type: 15, version: 1, assetId: encodeBase58(assetId), script, fee: WEST });

  it("refuses an empty script and an asset issued without a script; a smart asset's script decides on its new script", () => {
    const c = TestChain.open();
    const plain = issueTx(c, root);
    c.apply(plain);
    assertRejected(c.reject(setAssetScript(c, root, plain.id, null)), 112, scf('Cannot set empty script'));
    assertRejected(c.reject(setAssetScript(c, root, plain.id, TRUE_SCRIPT)), 112, scf('Cannot set script on an asset issued without a script'));
    assertRejected(
      c.reject(setAssetScript(c, bob, plain.id, TRUE_SCRIPT)),
      112,
      scf(`PermissionError(Sender ${bob.b58} permission validation failed: Has no active 'contract_developer' role)`),
    );
    const smart = issueTx(c, root, { script: TRUE_SCRIPT, name: 'Smart' });
    c.apply(smart);
    // The asset's script (TRUE) lets the change through; the new one (FALSE) then refuses the next (307 token-script).
    c.apply(setAssetScript(c, root, smart.id, FALSE_SCRIPT));
    assert.equal(encodeBase64(c.store.asset(smart.id)?.script ?? new Uint8Array()), FALSE_SCRIPT.slice('base64:'.length));
    const refused = c.reject(setAssetScript(c, root, smart.id, TRUE_SCRIPT));
    assertRejected(refused, 307, 'Transaction is not allowed by token-script', false);
    assert.equal(refused.extra?.['script'], 'FALSE');
  });
});
