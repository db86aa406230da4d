/**
 * `node.anchoring` (WE's AnchoringSettings and TargetnetAuthSettings): where and how often a
 * node anchors its chain into a target network. settings-keys.ts reads and renders
 * them; a node without the section (or with `enable = no`) has none.
 *
 * WE hard-codes the pacing of a round; Weft keeps WE's numbers as defaults and lets two of
 * them be set (`retry-delay`, `height-poll-interval`), so that a network with fast blocks —
 * or a test — need not wait WE's 35 seconds per target-height poll.
 */

/** How the node authenticates to the target node. */
export type TargetnetAuth =
  /** WE's `api-key`: nothing is sent; the target's routes used (broadcast, tx info, height) are open in its api-key mode. */
  | { readonly type: 'api-key' }
  /** OAuth2: a token fetched from an authorization service, sent as `Authorization: Bearer`. */
  | {
      readonly type: 'oauth2';
      /** The static bearer token the node presents to the authorization service. */
      readonly authorizationToken: string;
      /** The token endpoint (POST). */
      readonly authorizationServiceUrl: string;
      /** Delay between token fetches. */
      readonly tokenUpdateIntervalMs: number;
    };

export interface TargetnetSettings {
  readonly auth: TargetnetAuth;
  /** The target network's chain id (one character). */
  readonly schemeByte: string;
  /** The target node's REST base URL; a path in it prefixes every call. */
  readonly nodeAddress: string;
  /** Address (target scheme) of the key in the target wallet that signs and pays the target transactions. */
  readonly nodeRecipientAddress: string;
  /** Password of that key's keystore entry (none: an entry without a password). */
  readonly privateKeyPassword: string | undefined;
  /** The keystore file holding the target key, and WE's `wallet.password` (read; Weft's keystore encrypts per key). */
  readonly wallet: { readonly file: string; readonly password: string };
  /** Fee of each target transaction, in the target's smallest units. */
  readonly fee: bigint;
}

export interface AnchoringSettings {
  /** `height-condition.range`: a round starts at each current height that is a multiple of it. */
  readonly heightRange: number;
  /** `height-condition.above`: target blocks required above the target transaction before the write-back. */
  readonly heightAbove: number;
  /** The anchored block lies this far below the current height. */
  readonly threshold: number;
  readonly targetnet: TargetnetSettings;
  /** `sidechain-fee`: fee of the write-back and error transactions on this chain. */
  readonly sidechainFee: bigint;
  /** Pause before each "is it mined?" poll of the target. */
  readonly txMiningCheckDelayMs: number;
  /** Retries of that poll. */
  readonly txMiningCheckCount: number;
  /** Weft: pause before each broadcast, target-height poll and existence re-check attempt (WE: 5 s, hard-coded). */
  readonly retryDelayMs: number;
  /** Weft: pause after each target-height poll (WE: 30 s, hard-coded). */
  readonly heightPollIntervalMs: number;
}

/** WE's defaults and hard-coded pacing (AnchoringScheduler, AnchoringSettings). */
export const ANCHORING_DEFAULTS = {
  txMiningCheckDelayMs: 5000,
  txMiningCheckCount: 20,
  retryDelayMs: 5000,
  heightPollIntervalMs: 30_000,
  /** Retries of a broadcast that failed in transport. */
  broadcastRetries: 10,
  /** Retries of one failing target-height poll. */
  heightPollRetries: 100,
  /** Retries of the existence re-check. */
  recheckRetries: 20,
  /** Pause after a failed token fetch before the next one. */
  tokenErrorPauseMs: 10_000,
} as const;
