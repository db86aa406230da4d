/**
 * NodeInfoService (WE's NodeInfoServiceImpl): the node's settings as `/node/config` reads
 * them (NodeControlService.config) in 1.14's protobuf form — durations as
 * google.protobuf.Duration, `chain_id` the chain character's code, `crypto_type` at field 13,
 * no `block_timing` (1.14 does not fill it) — and the node owner as `/node/owner` answers it.
 */
import { CONSENSUS_TYPE, durationOfMs, NODE_INFO_SERVICE_DEFINITION, PKI_MODE, type NodeConfigMessage } from './public-api-1.14.js';
import { unary, type PublicGrpcDeps, type PublicGrpcService } from './public-service.js';
import { nodeOwnerAnswer } from '../routes/node.js';
import type { NodeConfigInfo } from '../services.js';

const feeRecord = (fees: ReadonlyMap<number, bigint>): Record<string, bigint> => Object.fromEntries([...fees].map(([type, fee]) => [String(type), fee]));

/** WE's NodeConfigRawResponse.toProto. */
export function nodeConfigMessage(c: NodeConfigInfo): NodeConfigMessage {
  return {
    version: c.version,
    chainId: c.chainId.charCodeAt(0),
    consensus: CONSENSUS_TYPE[c.consensus] ?? 0,
    minimumFee: feeRecord(c.minimumFee),
    additionalFee: feeRecord(c.additionalFee),
    maxTransactionsInMicroBlock: c.maxTransactionsInMicroBlock,
    minMicroBlockAge: durationOfMs(c.minMicroBlockAgeMs),
    microBlockInterval: durationOfMs(c.microBlockIntervalMs),
    pkiMode: PKI_MODE[c.pkiMode] ?? 0,
    requiredOids: c.requiredOids,
    crlCheckEnabled: c.crlChecksEnabled,
    cryptoType: c.cryptoType,
  };
}

export function nodeInfoService(deps: PublicGrpcDeps): PublicGrpcService {
  const { services } = deps;
  return {
    definition: NODE_INFO_SERVICE_DEFINITION,
    implementation: {
      nodeConfig: unary(deps, 'user', () => nodeConfigMessage(services.node.config())),
      nodeOwner: unary(deps, 'user', () => nodeOwnerAnswer(services)),
    },
  };
}
