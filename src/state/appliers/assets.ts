/**
 * Issue (3), Reissue (5), Burn (6), SponsorFee (14) and SetAssetScript (15): we-node
 * AssetTransactionsDiff and AssetOpsSupport. Scripts are stored, never evaluated here.
 */
import { Burn, Issue, Reissue, SponsorFee } from '../../protocol/transactions/assets.js';
import { SetAssetScript } from '../../protocol/transactions/scripts.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import { equalBytes, INT64 } from '../../protocol/bytes.js';
import type { AssetInfo } from '../model.js';
import type { StateView } from '../view.js';
import { addressOf, payFee, senderOf, stateError, type Applier } from './context.js';
import { FEATURE } from '../../protocol/features.js';


/** AssetOpsSupport.findAssetAndCheckCallerGrants. */
function findAsset(state: StateView, tx: Transaction, assetId: Uint8Array, onlyIssuer: boolean): AssetInfo {
  const asset = state.asset(assetId);
  if (asset === undefined) throw stateError('Referenced assetId not found');
  if (onlyIssuer && !equalBytes(addressOf(state, asset.issuer).bytes, senderOf(tx).bytes)) {
    throw stateError('Asset was issued by other address');
  }
  return asset;
}

export const applyIssue: Applier = (state, tx, ctx) => {
  if (!Issue.is(tx)) throw new Error('applyIssue: not an Issue');
  const d = tx.data;
  const sender = senderOf(tx).bytes;
  state.putAsset(tx.id, {
    issuer: d.senderPublicKey,
    height: ctx.height,
    timestamp: d.timestamp,
    name: d.name,
    description: d.description,
    decimals: d.decimals,
    reissuable: d.reissuable,
    volume: d.quantity,
    script: d.script,
    sponsorship: false,
  });
  state.addBalance(sender, tx.id, d.quantity);
  payFee(state, sender, tx);
  return undefined;
};

export const applyReissue: Applier = (state, tx, ctx) => {
  if (!Reissue.is(tx)) throw new Error('applyReissue: not a Reissue');
  const d = tx.data;
  const asset = findAsset(state, tx, d.assetId, true);
  if (!asset.reissuable) throw stateError('Asset is not reissuable');
  if (INT64.MAX - d.quantity < asset.volume && ctx.isFeatureActive(FEATURE.DATA_TRANSACTION)) throw stateError('Asset total value overflow');
  const sender = senderOf(tx).bytes;
  state.putAsset(d.assetId, { ...asset, volume: asset.volume + d.quantity, reissuable: asset.reissuable && d.reissuable });
  state.addBalance(sender, d.assetId, d.quantity);
  payFee(state, sender, tx);
  return undefined;
};

export const applyBurn: Applier = (state, tx, ctx) => {
  if (!Burn.is(tx)) throw new Error('applyBurn: not a Burn');
  const d = tx.data;
  const asset = findAsset(state, tx, d.assetId, !ctx.isFeatureActive(FEATURE.BURN_ANY_TOKENS));
  const sender = senderOf(tx).bytes;
  state.putAsset(d.assetId, { ...asset, volume: asset.volume - d.amount });
  state.addBalance(sender, d.assetId, -d.amount);
  payFee(state, sender, tx);
  return undefined;
};

export const applySponsorFee: Applier = (state, tx) => {
  if (!SponsorFee.is(tx)) throw new Error('applySponsorFee: not a SponsorFee');
  const d = tx.data;
  const asset = findAsset(state, tx, d.assetId, true);
  if (asset.script !== null) throw stateError('Cannot enable sponsorship for a smart asset');
  const sender = senderOf(tx).bytes;
  state.putAsset(d.assetId, { ...asset, sponsorship: d.isEnabled });
  payFee(state, sender, tx);
  return undefined;
};

export const applySetAssetScript: Applier = (state, tx) => {
  if (!SetAssetScript.is(tx)) throw new Error('applySetAssetScript: not a SetAssetScript');
  const d = tx.data;
  if (d.script === null) throw stateError('Cannot set empty script');
  const asset = findAsset(state, tx, d.assetId, true);
  if (asset.script === null) throw stateError('Cannot set script on an asset issued without a script');
  const sender = senderOf(tx).bytes;
  state.putAsset(d.assetId, { ...asset, script: d.script });
  payFee(state, sender, tx);
  return undefined;
};
