/**
 * WE 1.14's public ConfidentialContractService (we-core
 * `grpc-protobuf/.../contract/confidential_contract_service.proto`, served by the node on
 * its gRPC port beside the contract services; WE's ConfidentialContractServiceImpl):
 *
 * - `ConfidentialCall(ConfidentialCallRequest)`: a confidential call as
 *   `POST /confidential-contracts/call` makes it (same checks and WE codes in the
 *   `error-code` trailer), `broadcast_tx` and `commitment_verification` in the request (proto3
 *   defaults: false); answers the CallContract V6 and its confidential input.
 * - `ConfidentialExecutedTxByExecutableTxId(ExecutedTxRequest)`: the 105 V4 of a confidential
 *   call with its input and output, as `GET /confidential-contracts/tx/{id}`.
 * - `GetContractKeys(ContractKeysRequest)`: the contract's confidential state; `matches` (a
 *   regular expression the whole key must match), else the keys filter, else all, then
 *   `offset`/`limit` as the contract service pages.
 *
 * Auth is WE's default for it (GrpcAuth.withAuthTask without a protection level): open under
 * API-key auth, a `user` OAuth token under OAuth2 (`authorize`).
 *
 * The transactions go out in WE 1.14's generated protobuf forms. Their field numbers follow
 * we-core's TxProtoGenerator (1 = id, then the TxScheme fields present in some version and
 * not hard-coded, in order): CallContractTransaction = the 1.10 message (fields 1–12) plus
 * `input_commitment` 13; ExecutedContractTransaction = id 1, sender_public_key 2, tx 3,
 * results 4, results_map 5, results_hash 6, validation_proofs 7, timestamp 8,
 * asset_operations 9, proofs 10, sender_address 11, readings 12 (each ReadDescriptor's
 * bytes), readings_hash 13 (BytesValue), output_commitment 14. Embedded messages the 1.10
 * stubs know (DataEntry, AtomicBadge, ValidationProof, CallContractTransaction) are encoded
 * with them and carried as bytes: the same bytes on the wire. The messages are declared in
 * confidential-contract-service.proto beside this file.
 */
import * as grpc from '@grpc/grpc-js';
import { AtomicBadge as AtomicBadgeMessage } from '@wavesenterprise/js-contract-grpc-client/atomic_badge.js';
import { ContractKeysRequest, ContractKeysResponse } from '@wavesenterprise/js-contract-grpc-client/contract/contract_contract_service.js';
import { DataEntry as DataEntryMessage } from '@wavesenterprise/js-contract-grpc-client/data_entry.js';
import { CallContractTransaction as CallContractMessage } from '@wavesenterprise/js-contract-grpc-client/managed/call_contract_transaction.js';
import { ValidationProof as ValidationProofMessage } from '@wavesenterprise/js-contract-grpc-client/validation_proof.js';
import protobuf from 'protobufjs';
import { encodeBase58 } from '../../crypto/encoding.js';
import { concatBytes } from '../../protocol/bytes.js';
import type { Protocol } from '../../protocol/protocol.js';
import { readDescriptorsBytes, type CallContractTransaction, type ExecutedContractTransaction } from '../../protocol/transactions/contracts.js';
import type { AtomicBadge, DataEntry } from '../../protocol/transactions/fields.js';
import { customValidationError, WeError } from '../../errors/catalogue.js';
import type { ConfidentialDataUnit } from '../confidential/data.js';
import type { ConfidentialCallRequest, ConfidentialContractsApi } from '../confidential/service.js';
import { dataEntryFromMessage, dataEntryToMessage, long } from './mapping.js';
import { protoTypes } from './proto-files.js';
import { applyPage, grpcErrorOf, keysMatchingPattern } from './server.js';

const type = protoTypes('confidential-contract-service.proto');
const CallRequestType = type('ConfidentialCallRequest');
const CallResponseType = type('ConfidentialCallResponse');
const ExecutedTxRequestType = type('ExecutedTxRequest');
const ExecutedTxResponseType = type('ExecutedTxByIdResponse');
const TO_OBJECT: protobuf.IConversionOptions = { longs: String, defaults: true, bytes: Array };

/** CallContractTransaction field 13 (`input_commitment`), length-delimited. */
const INPUT_COMMITMENT_TAG = (13 << 3) | 2;

const entryBytes = (e: DataEntry): Uint8Array => DataEntryMessage.encode(dataEntryToMessage(e)).finish();

/** A CallContract V6 in WE 1.14's CallContractTransaction protobuf form. */
export function callContractMessage(tx: CallContractTransaction, p: Protocol): Uint8Array {
  const d = tx.data;
  const head = CallContractMessage.encode({
    id: tx.id,
    senderPublicKey: tx.senderPublicKey!,
    contractId: d.contractId,
    params: d.params.map(dataEntryToMessage),
    fee: long(d.fee),
    timestamp: long(tx.timestamp),
    contractVersion: d.contractVersion ?? 1,
    feeAssetId: d.feeAssetId ?? undefined,
    atomicBadge: d.atomicBadge === undefined || d.atomicBadge === null ? undefined : { trustedSender: d.atomicBadge.trustedSender?.bytes },
    payments: (d.payments ?? []).map((pay) => ({ assetId: pay.assetId === null ? [] : [encodeBase58(pay.assetId)], amount: long(pay.amount) })),
    proofs: [...tx.proofs],
    senderAddress: p.addresses.fromPublicKey(tx.senderPublicKey!).bytes,
  }).finish();
  if (d.inputCommitment === undefined || d.inputCommitment === null) return head;
  const tail = protobuf.Writer.create().uint32(INPUT_COMMITMENT_TAG).bytes(d.inputCommitment).finish();
  return concatBytes(head, tail);
}

/** A 105 V4 in WE 1.14's ExecutedContractTransaction protobuf form (the object protobufjs encodes); `call` is its `tx`. */
function executedContractObject(tx: ExecutedContractTransaction, call: CallContractTransaction, p: Protocol): Record<string, unknown> {
  const d = tx.data;
  return {
    id: tx.id,
    senderPublicKey: tx.senderPublicKey!,
    tx: { version: call.version, callContractTransaction: callContractMessage(call, p) },
    results: (d.results ?? []).map(entryBytes),
    resultsHash: d.resultsHash,
    validationProofs: (d.validationProofs ?? []).map((v) =>
      ValidationProofMessage.encode({ validatorPublicKey: v.validatorPublicKey, signature: v.signature }).finish(),
    ),
    timestamp: tx.timestamp.toString(),
    proofs: [...tx.proofs],
    senderAddress: p.addresses.fromPublicKey(tx.senderPublicKey!).bytes,
    readings: (d.readings ?? []).map((r) => readDescriptorsBytes(p, [r])),
    ...(d.readingsHash === undefined || d.readingsHash === null ? {} : { readingsHash: { value: d.readingsHash } }),
    outputCommitment: d.outputCommitment,
  };
}

/** WE's ConfidentialInput / ConfidentialOutput protobuf form. */
function dataObject(u: ConfidentialDataUnit): Record<string, unknown> {
  return {
    commitmentHash: u.commitment,
    txId: encodeBase58(u.txId),
    contractId: encodeBase58(u.contractId),
    commitmentKey: u.commitmentKey,
    entries: u.entries.map(entryBytes),
  };
}

const serialize =
  (t: protobuf.Type) =>
  (o: Record<string, unknown>): Buffer =>
    Buffer.from(t.encode(t.fromObject(o)).finish());

interface CallRequestObject {
  readonly contractId: string;
  readonly contractVersion: number;
  readonly params: readonly number[][];
  readonly timestamp: string;
  readonly atomicBadge: readonly number[];
  readonly fee: string;
  readonly feeAssetId?: { readonly value: string };
  readonly commitment?: { readonly value: string };
  readonly commitmentKey?: { readonly value: string };
  readonly broadcastTx: boolean;
  readonly commitmentVerification: boolean;
}

function atomicBadgeOf(bytes: readonly number[], p: Protocol): AtomicBadge | null {
  if (bytes.length === 0) return null;
  const sender = AtomicBadgeMessage.decode(Uint8Array.from(bytes)).trustedSender;
  return { trustedSender: sender === undefined ? null : p.addresses.addressFromBytes(Uint8Array.from(sender), 'atomicBadge.trustedSender') };
}

function callRequestOf(o: CallRequestObject, p: Protocol): ConfidentialCallRequest {
  return {
    contractId: o.contractId,
    contractVersion: o.contractVersion,
    params: o.params.map((b) => dataEntryFromMessage(DataEntryMessage.decode(Uint8Array.from(b)))),
    timestamp: BigInt(o.timestamp),
    atomicBadge: atomicBadgeOf(o.atomicBadge, p),
    fee: BigInt(o.fee),
    feeAssetId: o.feeAssetId?.value ?? null,
    commitment: o.commitment?.value,
    commitmentKey: o.commitmentKey?.value,
  };
}

export interface ConfidentialContractServiceDeps {
  readonly api: ConfidentialContractsApi;
  readonly protocol: Protocol;
  /** Checks a call's `authorization` metadata; throws the WeError to answer. Open when absent. */
  readonly authorize?: (authorization: string | undefined) => void;
}

const method = (
  name: string,
  requestDeserialize: (b: Buffer) => unknown,
  responseSerialize: (v: never) => Buffer,
): grpc.MethodDefinition<unknown, unknown> => ({
  path: `/wavesenterprise.ConfidentialContractService/${name}`,
  requestStream: false,
  responseStream: false,
  requestSerialize: () => Buffer.alloc(0),
  requestDeserialize,
  responseSerialize: responseSerialize as (v: unknown) => Buffer,
  responseDeserialize: (b: Buffer) => b,
});

/** The service definition and implementation to register on the node's gRPC server. */
export function confidentialContractService(deps: ConfidentialContractServiceDeps): {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
} {
  const { api, protocol: p } = deps;
  const definition: grpc.ServiceDefinition = {
    confidentialCall: method('ConfidentialCall', (b) => CallRequestType.toObject(CallRequestType.decode(b), TO_OBJECT), serialize(CallResponseType)),
    confidentialExecutedTxByExecutableTxId: method(
      'ConfidentialExecutedTxByExecutableTxId',
      (b) => ExecutedTxRequestType.toObject(ExecutedTxRequestType.decode(b), TO_OBJECT),
      serialize(ExecutedTxResponseType),
    ),
    getContractKeys: method(
      'GetContractKeys',
      (b) => ContractKeysRequest.decode(b),
      (v: ContractKeysResponse) => Buffer.from(ContractKeysResponse.encode(v).finish()),
    ),
  };
  const unary =
    <Req, Res>(handler: (request: Req) => Res | Promise<Res>): grpc.handleUnaryCall<Req, Res> =>
    (call, callback) => {
      Promise.resolve()
        .then(() => {
          const authorization = call.metadata.get('authorization')[0];
          deps.authorize?.(authorization === undefined ? undefined : String(authorization));
          return handler(call.request);
        })
        .then(
          (res) => callback(null, res),
          (e: unknown) => callback(grpcErrorOf(e instanceof WeError || !(e instanceof Error) ? e : customValidationError(e.message))),
        );
    };
  const implementation: grpc.UntypedServiceImplementation = {
    confidentialCall: unary<CallRequestObject, Record<string, unknown>>(async (req) => {
      const answer = await api.call(callRequestOf(req, p), req.broadcastTx, req.commitmentVerification);
      return { transaction: callContractMessage(answer.tx, p), confidentialInput: dataObject(answer.input) };
    }),
    confidentialExecutedTxByExecutableTxId: unary<{ transactionId: string }, Record<string, unknown>>((req) => {
      const answer = api.executed(req.transactionId);
      return {
        transaction: executedContractObject(answer.executed, answer.call, p),
        confidentialInput: dataObject(answer.input),
        confidentialOutput: dataObject(answer.output),
      };
    }),
    getContractKeys: unary<ContractKeysRequest, ContractKeysResponse>(async (req) => {
      let entries = api.entries(req.contractId);
      if (req.matches !== undefined) {
        entries = applyPage(await keysMatchingPattern(entries, (e) => e.key, req.matches), req.offset, req.limit);
      } else if (req.keysFilter !== undefined) {
        const wanted = new Set(req.keysFilter.keys);
        entries = entries.filter((e) => wanted.has(e.key));
      } else {
        entries = applyPage(entries, req.offset, req.limit);
      }
      return { entries: entries.map(dataEntryToMessage) };
    }),
  };
  return { definition, implementation };
}

/** A ConfidentialCallRequest / ExecutedTxRequest as a client sends it (tests and clients). */
export function encodeConfidentialRequest(kind: 'call' | 'executed', o: Record<string, unknown>): Uint8Array {
  const t = kind === 'call' ? CallRequestType : ExecutedTxRequestType;
  return t.encode(t.fromObject(o)).finish();
}

/** Reads a ConfidentialCallResponse / ExecutedTxByIdResponse back (tests and clients). */
export function decodeConfidentialResponse(kind: 'call' | 'executed', bytes: Uint8Array): Record<string, unknown> {
  const t = kind === 'call' ? CallResponseType : ExecutedTxResponseType;
  return t.toObject(t.decode(bytes), { longs: String, defaults: false, bytes: Array });
}
