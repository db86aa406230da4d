/**
 * `node.anchoring`'s key table (WE's AnchoringSettings): nothing unless `enable = yes`; then
 * every key WE requires must be set. Beyond WE's reader, values that cannot work are refused:
 * `height-condition.range` 0 (WE divides by it), `threshold` 0 (the anchored block would be
 * the liquid block, whose id changes with each micro-block), fees ≤ 0, a target address of
 * another network than `scheme-byte`, and WE's sample key `targetnet-fee` (which WE's reader
 * ignores) is named when `targetnet.fee` is missing.
 */
import {
  choiceKey,
  customKey,
  durationKey,
  fileKey,
  intKey,
  keyTable,
  nestedKey,
  positiveDurationKey,
  stringKey,
  variantTable,
  type HoconObject,
  type Key,
  type KeyTable,
} from '../config/key-table.js';
import type { ConfigSection } from '../config/section.js';
import { describeValue, fail, parseString } from '../config/values.js';
import { WeError } from '../errors/catalogue.js';
import { Protocol } from '../protocol/protocol.js';
import { ANCHORING_DEFAULTS, type AnchoringSettings, type TargetnetAuth, type TargetnetSettings } from './settings.js';

/** An http(s) URL. */
function parseHttpUrl(v: unknown, path: string): string {
  const text = parseString(v, path).trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail(path, `expected an http or https URL, got ${describeValue(v)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(path, `expected an http or https URL, got ${describeValue(v)}`);
  return text;
}

const httpUrlKey = (path: string): Key<string> =>
  customKey(
    path,
    (s) => s.value(path, parseHttpUrl),
    (v) => v,
  );

/** A 64-bit amount > 0; `hint` replaces "required" when the key is missing. */
function positiveLongKey<C>(path: string, hint?: (section: ConfigSection, context: C) => string | undefined): Key<bigint, C> {
  return customKey(
    path,
    (s, context: C) => {
      const why = s.has(path) ? undefined : hint?.(s, context);
      if (why !== undefined) fail(s.at(path), why);
      const v = s.long(path);
      return v <= 0n ? fail(s.at(path), `must be > 0, got ${v}`) : v;
    },
    (v) => v,
  );
}

const AUTH = variantTable<TargetnetAuth, TargetnetAuth['type']>(
  'type',
  {
    'api-key': keyTable<{ type: 'api-key' }>({ type: choiceKey('type', ['api-key']) }),
    oauth2: keyTable(
      {
        type: choiceKey('type', ['oauth2']),
        authorizationToken: stringKey('authorization-token'),
        authorizationServiceUrl: httpUrlKey('authorization-service-url'),
        tokenUpdateIntervalMs: positiveDurationKey('token-update-interval', undefined, 'must be > 0'),
      },
      { readFirst: ['tokenUpdateIntervalMs'] },
    ),
  },
  (auth) => auth.type,
);

/** `targetnet`; its context: the anchoring section, to name WE's sample key `targetnet-fee` when `fee` is missing. */
const TARGETNET = keyTable<TargetnetSettings, ConfigSection>({
  auth: nestedKey('auth', AUTH),
  schemeByte: customKey(
    'scheme-byte',
    (t) => {
      const schemeByte = t.string('scheme-byte');
      if (schemeByte.charCodeAt(0) > 127) fail(t.at('scheme-byte'), `expected an ASCII character, got ${describeValue(schemeByte)}`);
      return schemeByte[0]!;
    },
    (v) => v,
  ),
  nodeAddress: httpUrlKey('node-address'),
  nodeRecipientAddress: customKey(
    'node-recipient-address',
    (t) => t.string('node-recipient-address').trim(),
    (v) => v,
  ),
  privateKeyPassword: customKey(
    'private-key-password',
    (t) => {
      const v = t.get('private-key-password');
      return v === undefined ? undefined : parseString(v, t.at('private-key-password'), { allowEmpty: true });
    },
    (v) => v,
  ),
  wallet: nestedKey('wallet', keyTable({ file: fileKey('file'), password: stringKey('password', '', { allowEmpty: true }) })),
  fee: positiveLongKey('fee', (_t, anchoring: ConfigSection) =>
    anchoring.has('targetnet-fee') ? `required, but not set (WE's sample key ${anchoring.at('targetnet-fee')} is not read: write targetnet.fee)` : undefined,
  ),
});

/** The keys under `node.anchoring` when it is enabled. */
export const ANCHORING_TABLE: KeyTable<AnchoringSettings> = keyTable<AnchoringSettings>({
  heightRange: intKey('height-condition.range', undefined, { min: 1 }),
  heightAbove: intKey('height-condition.above', undefined, { min: 0 }),
  threshold: intKey('threshold', undefined, { min: 1 }),
  targetnet: customKey(
    'targetnet',
    (a) => TARGETNET.read(a.section('targetnet'), a),
    (t) => TARGETNET.render(t),
  ),
  sidechainFee: positiveLongKey('sidechain-fee'),
  txMiningCheckDelayMs: durationKey('tx-mining-check-delay', ANCHORING_DEFAULTS.txMiningCheckDelayMs),
  txMiningCheckCount: intKey('tx-mining-check-count', ANCHORING_DEFAULTS.txMiningCheckCount, { min: 0 }),
  retryDelayMs: durationKey('retry-delay', ANCHORING_DEFAULTS.retryDelayMs),
  heightPollIntervalMs: durationKey('height-poll-interval', ANCHORING_DEFAULTS.heightPollIntervalMs),
});

/** `node.anchoring`: undefined unless `enable = yes`; the target address must be one of the targetnet's. */
export async function readAnchoring(a: ConfigSection): Promise<AnchoringSettings | undefined> {
  if (!a.bool('enable', false)) return undefined;
  const settings = ANCHORING_TABLE.read(a, undefined);
  const { schemeByte: chainId, nodeRecipientAddress } = settings.targetnet;
  const targetProtocol = await Protocol.create({ crypto: 'waves', chainId });
  try {
    targetProtocol.addresses.parseAddress(nodeRecipientAddress);
  } catch (e) {
    if (e instanceof WeError) fail(a.at('targetnet.node-recipient-address'), `not an address of the targetnet '${chainId}': ${e.message}`);
    throw e;
  }
  return settings;
}

/** `node.anchoring` in WE's keys (Weft's `retry-delay` and `height-poll-interval` too); `enable = false` when off. */
export function renderAnchoring(a: AnchoringSettings | undefined): HoconObject {
  return a === undefined ? { enable: false } : { enable: true, ...ANCHORING_TABLE.render(a) };
}
