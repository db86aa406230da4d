/**
 * The messages of WE 1.14's public gRPC API that `@wavesenterprise/js-contract-grpc-client@1.10.0`
 * lacks or has in an older form (public-api-1.14.proto, parsed with protobufjs):
 *
 * - NodeConfigResponse: 1.14 has `crypto_type` as a string at field 13 where the 1.10 stub has
 *   an enum at field 2 (reserved in 1.14). A 1.10 client still reads every other field.
 * - ContractPublicService.GetContractBalances and its request (absent from the package); its
 *   answer is the package's ContractBalancesResponse.
 */
import type * as grpc from '@grpc/grpc-js';
import type { Empty } from '@wavesenterprise/js-contract-grpc-client/google/protobuf/empty.js';
import { ContractBalancesResponse } from '@wavesenterprise/js-contract-grpc-client/contract/contract_contract_service.js';
import { Empty as EmptyMessage } from '@wavesenterprise/js-contract-grpc-client/google/protobuf/empty.js';
import { AddressWithPubKeyResponse } from '@wavesenterprise/js-contract-grpc-client/util/util_node_info_service.js';
import type protobuf from 'protobufjs';
import { protoTypesIn } from '../../protocol/proto/proto-files.js';

/** This folder in the source tree (the build compiles TypeScript only), seen from dist/src/api/grpc/. */
const type = protoTypesIn(new URL('../../../../src/api/grpc/', import.meta.url), 'public-api-1.14.proto');
const NodeConfig = type('NodeConfigResponse');
const BalancesByIdRequest = type('ContractBalancesByIdRequest');

const TO_OBJECT: protobuf.IConversionOptions = { longs: String, defaults: true, oneofs: true };

/** google.protobuf.Duration of a span in ms. */
export interface DurationMessage {
  readonly seconds: bigint;
  readonly nanos: number;
}

export const durationOfMs = (ms: number): DurationMessage => ({ seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 });

/** ConsensusType and PkiMode of constants.proto. */
export const CONSENSUS_TYPE: Readonly<Record<string, number>> = { POA: 1, POS: 2, CFT: 3 };
export const PKI_MODE: Readonly<Record<string, number>> = { ON: 1, OFF: 2, TEST: 3 };

/** NodeConfigResponse as 1.14 fills it (no `block_timing`). */
export interface NodeConfigMessage {
  readonly version: string;
  readonly chainId: number;
  readonly consensus: number;
  readonly minimumFee: Readonly<Record<string, bigint>>;
  readonly additionalFee: Readonly<Record<string, bigint>>;
  readonly maxTransactionsInMicroBlock: number;
  readonly minMicroBlockAge: DurationMessage;
  readonly microBlockInterval: DurationMessage;
  readonly pkiMode: number;
  readonly requiredOids: readonly string[];
  readonly crlCheckEnabled: boolean;
  readonly cryptoType: string;
}

type Raw = Record<string, unknown>;
const durationObject = (d: DurationMessage): Raw => ({ seconds: d.seconds.toString(), nanos: d.nanos });
const durationOf = (o: unknown): DurationMessage => {
  const d = (o ?? {}) as Raw;
  return { seconds: BigInt((d['seconds'] as string | undefined) ?? '0'), nanos: (d['nanos'] as number | undefined) ?? 0 };
};
const feesObject = (fees: Readonly<Record<string, bigint>>): Raw => Object.fromEntries(Object.entries(fees).map(([k, v]) => [k, v.toString()]));
const feesOf = (o: unknown): Record<string, bigint> => Object.fromEntries(Object.entries((o ?? {}) as Record<string, string>).map(([k, v]) => [k, BigInt(v)]));

export function encodeNodeConfig(m: NodeConfigMessage): Buffer {
  const message = NodeConfig.fromObject({
    ...m,
    minimumFee: feesObject(m.minimumFee),
    additionalFee: feesObject(m.additionalFee),
    minMicroBlockAge: durationObject(m.minMicroBlockAge),
    microBlockInterval: durationObject(m.microBlockInterval),
    requiredOids: [...m.requiredOids],
  });
  return Buffer.from(NodeConfig.encode(message).finish());
}

export function decodeNodeConfig(bytes: Uint8Array): NodeConfigMessage & { readonly blockTiming?: string } {
  const o = NodeConfig.toObject(NodeConfig.decode(bytes), TO_OBJECT);
  return {
    version: o['version'] as string,
    chainId: o['chainId'] as number,
    consensus: o['consensus'] as number,
    minimumFee: feesOf(o['minimumFee']),
    additionalFee: feesOf(o['additionalFee']),
    maxTransactionsInMicroBlock: o['maxTransactionsInMicroBlock'] as number,
    minMicroBlockAge: durationOf(o['minMicroBlockAge']),
    microBlockInterval: durationOf(o['microBlockInterval']),
    pkiMode: o['pkiMode'] as number,
    requiredOids: o['requiredOids'] as string[],
    crlCheckEnabled: o['crlCheckEnabled'] as boolean,
    cryptoType: o['cryptoType'] as string,
    ...(typeof o['blockTiming'] === 'string' ? { blockTiming: o['blockTiming'] } : {}),
  };
}

/** WE 1.14's NodeInfoService (same paths as the package's; NodeConfig in 1.14's form). */
export const NODE_INFO_SERVICE_DEFINITION = {
  nodeConfig: {
    path: '/wavesenterprise.NodeInfoService/NodeConfig',
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: Empty): Buffer => Buffer.from(EmptyMessage.encode(value).finish()),
    requestDeserialize: (bytes: Buffer): Empty => EmptyMessage.decode(bytes),
    responseSerialize: encodeNodeConfig,
    responseDeserialize: (bytes: Buffer) => decodeNodeConfig(bytes),
  },
  nodeOwner: {
    path: '/wavesenterprise.NodeInfoService/NodeOwner',
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: Empty): Buffer => Buffer.from(EmptyMessage.encode(value).finish()),
    requestDeserialize: (bytes: Buffer): Empty => EmptyMessage.decode(bytes),
    responseSerialize: (value: AddressWithPubKeyResponse): Buffer => Buffer.from(AddressWithPubKeyResponse.encode(value).finish()),
    responseDeserialize: (bytes: Buffer): AddressWithPubKeyResponse => AddressWithPubKeyResponse.decode(bytes),
  },
} satisfies grpc.ServiceDefinition;

/** ContractBalancesByIdRequest: an absent or empty asset id is WEST. */
export interface ContractBalancesByIdRequest {
  readonly contractId: string;
  readonly assetsIds: ReadonlyArray<string | undefined>;
}

/** WE 1.14's ContractPublicService. */
export const CONTRACT_PUBLIC_SERVICE_DEFINITION = {
  getContractBalances: {
    path: '/wavesenterprise.ContractPublicService/GetContractBalances',
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: ContractBalancesByIdRequest): Buffer =>
      Buffer.from(
        BalancesByIdRequest.encode(
          BalancesByIdRequest.fromObject({ contractId: value.contractId, assetsIds: value.assetsIds.map((id) => (id === undefined ? {} : { value: id })) }),
        ).finish(),
      ),
    requestDeserialize: (bytes: Buffer): ContractBalancesByIdRequest => {
      const o = BalancesByIdRequest.toObject(BalancesByIdRequest.decode(bytes), TO_OBJECT) as { contractId: string; assetsIds: Array<{ value: string }> };
      return { contractId: o.contractId, assetsIds: o.assetsIds.map((w) => w.value) };
    },
    responseSerialize: (value: ContractBalancesResponse): Buffer => Buffer.from(ContractBalancesResponse.encode(value).finish()),
    responseDeserialize: (bytes: Buffer): ContractBalancesResponse => ContractBalancesResponse.decode(bytes),
  },
} satisfies grpc.ServiceDefinition;
