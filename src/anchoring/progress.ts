/**
 * What anchoring keeps across restarts (beyond WE, which keeps nothing): the highest height
 * a round finished for, the round in flight with the exact target transaction it sent, and
 * the write-backs not yet settled on this chain. The node keeps it in a small file of its
 * data directory (node/anchoring-wiring.ts); tests keep it in memory.
 *
 * With it a restarted node resumes the round it was in (re-sending the same transaction,
 * which the target accepts again or already has), never anchors a height at or below one
 * it finished — also after this chain rolled back and grew past that height again — and
 * sees its confirmation and error transactions into a block even when they were dropped.
 */
import { decodeBase58, decodeBase64, encodeBase58, encodeBase64 } from '../crypto/encoding.js';

/** Where a round is. */
export type RoundStage = 'sending' | 'sent' | 'mined';

export interface RoundInFlight {
  /** Height and id of the anchored block of this chain. */
  readonly height: number;
  readonly signature: Uint8Array;
  /** The signed target transaction, as its JSON text (resent as is). */
  readonly targetTx: string;
  readonly targetTxId: string;
  readonly targetTxTimestamp: bigint;
  readonly stage: RoundStage;
  /** Target height where the transaction was found mined (stage `mined`). */
  readonly targetHeight?: number;
}

export interface PendingWriteBack {
  /** The anchored height it records. */
  readonly height: number;
  /** Full bytes of the signed transaction on this chain. */
  readonly bytes: Uint8Array;
}

export interface AnchoringProgress {
  /** The highest anchored height whose round finished (anchored or failed); 0 before any. */
  readonly lastHeight: number;
  readonly round: RoundInFlight | undefined;
  readonly writeBacks: readonly PendingWriteBack[];
}

export const NO_PROGRESS: AnchoringProgress = { lastHeight: 0, round: undefined, writeBacks: [] };

export interface ProgressStore {
  load(): AnchoringProgress;
  save(progress: AnchoringProgress): void;
}

const FORMAT = 'weft-anchoring-progress';

/** The JSON text of a progress record (binary as Base58/Base64, int64 as a decimal string). */
export function progressToJson(p: AnchoringProgress): string {
  const round = p.round;
  return `${JSON.stringify(
    {
      format: FORMAT,
      version: 1,
      lastHeight: p.lastHeight,
      round:
        round === undefined
          ? null
          : {
              height: round.height,
              signature: encodeBase58(round.signature),
              targetTx: round.targetTx,
              targetTxId: round.targetTxId,
              targetTxTimestamp: round.targetTxTimestamp.toString(),
              stage: round.stage,
              ...(round.targetHeight === undefined ? {} : { targetHeight: round.targetHeight }),
            },
      writeBacks: p.writeBacks.map((w) => ({ height: w.height, bytes: encodeBase64(w.bytes) })),
    },
    null,
    2,
  )}\n`;
}

/** A progress record from its JSON text; throws with what is wrong. */
export function progressFromJson(text: string): AnchoringProgress {
  const doc = JSON.parse(text) as Record<string, unknown>;
  const fail = (why: string): never => {
    throw new Error(`anchoring progress: ${why}`);
  };
  if (doc['format'] !== FORMAT || doc['version'] !== 1) fail('not a progress record of this version');
  const height = (v: unknown, what: string): number => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : fail(`${what} must be a height`));
  const text_ = (v: unknown, what: string): string => (typeof v === 'string' ? v : fail(`${what} must be a string`));
  const r = doc['round'] as Record<string, unknown> | null | undefined;
  let round: RoundInFlight | undefined;
  if (r !== null && r !== undefined) {
    const stage = r['stage'];
    if (stage !== 'sending' && stage !== 'sent' && stage !== 'mined') fail('round.stage is unknown');
    if (stage === 'mined' && r['targetHeight'] === undefined) fail('round.targetHeight is missing for a mined round');
    round = {
      height: height(r['height'], 'round.height'),
      signature: decodeBase58(text_(r['signature'], 'round.signature')),
      targetTx: text_(r['targetTx'], 'round.targetTx'),
      targetTxId: text_(r['targetTxId'], 'round.targetTxId'),
      targetTxTimestamp: BigInt(text_(r['targetTxTimestamp'], 'round.targetTxTimestamp')),
      stage: stage as RoundStage,
      ...(r['targetHeight'] === undefined ? {} : { targetHeight: height(r['targetHeight'], 'round.targetHeight') }),
    };
  }
  const writeBacks = Array.isArray(doc['writeBacks']) ? doc['writeBacks'] : fail('writeBacks must be a list');
  return {
    lastHeight: height(doc['lastHeight'], 'lastHeight'),
    round,
    writeBacks: writeBacks.map((w: Record<string, unknown>, i: number) => ({
      height: height(w['height'], `writeBacks[${i}].height`),
      bytes: decodeBase64(text_(w['bytes'], `writeBacks[${i}].bytes`)),
    })),
  };
}
