/**
 * Issue (3), Reissue (5), Burn (6), SponsorFee (14) and SetAssetScript (15): we-node
 * AssetTransactionsDiff and AssetOpsSupport. Scripts are stored, never evaluated here.
 */
import type { BurnTransaction, IssueTransaction, ReissueTransaction, SponsorFeeTransaction } from '../../protocol/transactions/assets.js';
import type { SetAssetScriptTransaction } from '../../protocol/transactions/scripts.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import { equalBytes, INT64 } from '../../protocol/bytes.js';
import type { AssetInfo } from '../model.js';
import type { StateView } from '../view.js';
import { addressOf, payFee, senderOf, type Applier } from './context.js';
import { FEATURE } from '../../protocol/features.js';
import { featuresByVersion, namedAsset, ONE_WEST, paidFee, TX_PACKAGE, west, type TransactionRules } from './rules.js';
import { genericError } from '../../errors/catalogue.js';

/** AssetOpsSupport.findAssetAndCheckCallerGrants. */
function findAsset(state: StateView, tx: Transaction, assetId: Uint8Array, onlyIssuer: boolean): AssetInfo {
  const asset = state.asset(assetId);
  if (asset === undefined) throw genericError('Referenced assetId not found');
  if (onlyIssuer && !equalBytes(addressOf(state, asset.issuer).bytes, senderOf(tx).bytes)) {
    throw genericError('Asset was issued by other address');
  }
  return asset;
}

export const applyIssue: Applier<IssueTransaction> = (state, tx, ctx) => {
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

export const applyReissue: Applier<ReissueTransaction> = (state, tx, ctx) => {
  const d = tx.data;
  const asset = findAsset(state, tx, d.assetId, true);
  if (!asset.reissuable) throw genericError('Asset is not reissuable');
  if (INT64.MAX - d.quantity < asset.volume && ctx.isFeatureActive(FEATURE.DATA_TRANSACTION)) throw genericError('Asset total value overflow');
  const sender = senderOf(tx).bytes;
  state.putAsset(d.assetId, { ...asset, volume: asset.volume + d.quantity, reissuable: asset.reissuable && d.reissuable });
  state.addBalance(sender, d.assetId, d.quantity);
  payFee(state, sender, tx);
  return undefined;
};

export const applyBurn: Applier<BurnTransaction> = (state, tx, ctx) => {
  const d = tx.data;
  const asset = findAsset(state, tx, d.assetId, !ctx.isFeatureActive(FEATURE.BURN_ANY_TOKENS));
  const sender = senderOf(tx).bytes;
  state.putAsset(d.assetId, { ...asset, volume: asset.volume - d.amount });
  state.addBalance(sender, d.assetId, -d.amount);
  payFee(state, sender, tx);
  return undefined;
};

export const applySponsorFee: Applier<SponsorFeeTransaction> = (state, tx) => {
  const d = tx.data;
  const asset = findAsset(state, tx, d.assetId, true);
  if (asset.script !== null) throw genericError('Cannot enable sponsorship for a smart asset');
  const sender = senderOf(tx).bytes;
  state.putAsset(d.assetId, { ...asset, sponsorship: d.isEnabled });
  payFee(state, sender, tx);
  return undefined;
};

export const applySetAssetScript: Applier<SetAssetScriptTransaction> = (state, tx) => {
  const d = tx.data;
  if (d.script === null) throw genericError('Cannot set empty script');
  const asset = findAsset(state, tx, d.assetId, true);
  if (asset.script === null) throw genericError('Cannot set script on an asset issued without a script');
  const sender = senderOf(tx).bytes;
  state.putAsset(d.assetId, { ...asset, script: d.script });
  payFee(state, sender, tx);
  return undefined;
};

const ASSETS = `${TX_PACKAGE}.assets`;
const SMART_ACCOUNTS_THEN_ATOMIC = featuresByVersion({ 2: [FEATURE.SMART_ACCOUNTS], 3: [FEATURE.SMART_ACCOUNTS, FEATURE.OTHER_TX_TYPES_ATOMIC] });

export const ISSUE: TransactionRules<IssueTransaction> = {
  apply: applyIssue,
  scalaClass: { pkg: ASSETS, name: 'IssueTransaction', versioned: true },
  features: SMART_ACCOUNTS_THEN_ATOMIC,
  fieldFeatures: (tx) => (tx.data.script !== null ? [FEATURE.SMART_ASSETS] : []),
  roles: () => ['issuer'],
  fee: paidFee('issue', ONE_WEST),
};

export const REISSUE: TransactionRules<ReissueTransaction> = {
  apply: applyReissue,
  scalaClass: { pkg: ASSETS, name: 'ReissueTransaction', versioned: true },
  features: SMART_ACCOUNTS_THEN_ATOMIC,
  roles: () => ['issuer'],
  smartAssets: namedAsset,
  fee: paidFee('reissue', ONE_WEST),
};

export const BURN: TransactionRules<BurnTransaction> = {
  apply: applyBurn,
  scalaClass: { pkg: ASSETS, name: 'BurnTransaction', versioned: true },
  features: SMART_ACCOUNTS_THEN_ATOMIC,
  smartAssets: namedAsset,
  fee: paidFee('burn', west(0.05)),
};

export const SPONSOR_FEE: TransactionRules<SponsorFeeTransaction> = {
  apply: applySponsorFee,
  scalaClass: { pkg: ASSETS, name: 'SponsorFeeTransaction', versioned: true },
  features: featuresByVersion({ 1: [FEATURE.SPONSORED_FEES], 2: [FEATURE.SPONSORED_FEES, FEATURE.OTHER_TX_TYPES_ATOMIC] }),
  smartAssets: namedAsset,
  fee: paidFee('sponsor-fee', ONE_WEST),
};

export const SET_ASSET_SCRIPT: TransactionRules<SetAssetScriptTransaction> = {
  apply: applySetAssetScript,
  scalaClass: { pkg: ASSETS, name: 'SetAssetScriptTransaction', versioned: true },
  features: featuresByVersion({ 1: [FEATURE.SMART_ASSETS] }),
  roles: () => ['contract_developer'],
  smartAssets: namedAsset,
  fee: paidFee('set-asset-script', ONE_WEST),
};
