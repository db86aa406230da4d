/**
 * TransactionPublicService of WE 1.14's public gRPC API (node api/grpc/service/
 * TransactionServiceImpl.scala): Broadcast, BroadcastWithCerts, UtxInfo, TransactionInfo and
 * UnconfirmedTransactionInfo, at `/wavesenterprise.grpc.TransactionPublicService/<Method>` as
 * the official generated client calls them.
 *
 * Transactions travel in WE's protobuf form (protocol/proto/transactions.ts): requests arrive
 * as raw bytes and are read once; answers are the cached encoding of the transaction. A
 * broadcast goes through the node's one admission door (`pool.broadcast`), as REST's does, and
 * answers with the transaction as admitted. Every refusal is a WeError rendered by `errorOf`
 * (status from its HTTP status, WE's `error-code`/`error-message` trailers).
 */
import * as grpc from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import { decodeBase58, encodeBase64 } from '../../crypto/encoding.js';
import { protoRoot } from '../../protocol/proto/proto-files.js';
import { transactionFromProto, transactionToProto } from '../../protocol/proto/transactions.js';
import type { PublicGrpcDeps } from './public-service.js';
import { customValidationError, genericError, illegalWatcherAction, invalidSignature, WeError } from '../../errors/catalogue.js';

/** A watcher node (`services.settings.watcher`) takes no transactions. */
export type TransactionPublicServiceDeps = PublicGrpcDeps;

const SERVICE_PATH = '/wavesenterprise.grpc.TransactionPublicService/';
/** UtxInfo sends a changed pool size at most this often. */
const UTX_INFO_INTERVAL_MS = 1000;
/** Longer text is no transaction id (a 64-byte one is at most 88 characters of Base58). */
const MAX_TX_ID_TEXT = 100;

const root = protoRoot(new URL('../../../../src/api/grpc/', import.meta.url), ['transaction-public-service.proto']);
const type = (name: string): protobuf.Type => root.lookupType(`wavesenterprise.grpc.${name}`);
const TransactionWithCertChain = type('TransactionWithCertChain');
const TransactionInfoRequest = type('TransactionInfoRequest');
const TransactionInfoResponse = type('TransactionInfoResponse');
const UtxSize = type('UtxSize');

const raw = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
const buffer = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** A method whose request and answer are raw bytes, read and written by the handler itself. */
function method(name: string, responseStream: boolean): grpc.MethodDefinition<Uint8Array, Uint8Array> {
  return {
    path: `${SERVICE_PATH}${name}`,
    requestStream: false,
    responseStream,
    requestSerialize: buffer,
    requestDeserialize: raw,
    responseSerialize: buffer,
    responseDeserialize: raw,
  };
}

const DEFINITION = {
  broadcast: method('Broadcast', false),
  broadcastWithCerts: method('BroadcastWithCerts', false),
  utxInfo: method('UtxInfo', true),
  transactionInfo: method('TransactionInfo', false),
  unconfirmedTransactionInfo: method('UnconfirmedTransactionInfo', false),
} satisfies grpc.ServiceDefinition;

function decoded(t: protobuf.Type, bytes: Uint8Array): Record<string, unknown> {
  try {
    return t.decode(bytes) as unknown as Record<string, unknown>;
  } catch (e) {
    throw genericError(`Invalid ${t.name} message: ${(e as Error).message}`);
  }
}

function txIdText(bytes: Uint8Array): string {
  const id = decoded(TransactionInfoRequest, bytes)['txId'];
  return typeof id === 'string' ? id : '';
}

const notFound = (text: string): WeError => customValidationError(`Transaction with id '${text}' is not found in blockchain`, 'tx_id');

export function transactionPublicService(deps: TransactionPublicServiceDeps): {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
} {
  const { services } = deps;

  function unary(handle: (request: Uint8Array) => Promise<Uint8Array> | Uint8Array): grpc.handleUnaryCall<Uint8Array, Uint8Array> {
    return (call, callback) => {
      Promise.resolve()
        .then(() => {
          deps.authorize(call.metadata, 'user');
          return handle(call.request);
        })
        .then(
          (answer) => callback(null, answer),
          (e: unknown) => callback(deps.errorOf(e)),
        );
    };
  }

  /** Broadcast's door: the transaction (and its chain of certificates) into the pool; the answer is the admitted transaction. */
  async function admit(bytes: Uint8Array, certificates?: readonly string[]): Promise<Uint8Array> {
    if (deps.services.settings.watcher) throw illegalWatcherAction();
    const tx = transactionFromProto(services.protocol, bytes);
    return transactionToProto(await services.pool.broadcast(tx, certificates));
  }

  const utxInfo: grpc.handleServerStreamingCall<Uint8Array, Uint8Array> = (call) => {
    try {
      deps.authorize(call.metadata, 'user');
    } catch (e) {
      call.emit('error', deps.errorOf(e));
      return;
    }
    let last = '';
    /** Sends the pool size when it differs from the last one sent (and the client keeps up). */
    const send = (): void => {
      const { size, sizeInBytes } = services.pool.size();
      const now = `${size}/${sizeInBytes}`;
      if (now === last || call.writableNeedDrain) return;
      last = now;
      call.write(UtxSize.encode({ size, sizeInBytes }).finish());
    };
    send();
    const timer = setInterval(send, UTX_INFO_INTERVAL_MS);
    // The stream ends only when the client goes: stop then, leaving no timer behind.
    timer.unref();
    const stop = (): void => clearInterval(timer);
    call.on('cancelled', stop);
    call.on('close', stop);
    call.on('error', stop);
  };

  const implementation = {
    broadcast: unary((bytes) => admit(bytes)),

    broadcastWithCerts: unary((bytes) => {
      const m = decoded(TransactionWithCertChain, bytes);
      if (deps.services.settings.watcher) throw illegalWatcherAction();
      // The certificates as REST's `certificates` (Base64 of DER), so both ways in check them alike.
      const certificates = (Array.isArray(m['certificates']) ? (m['certificates'] as Uint8Array[]) : []).map(encodeBase64);
      if (!Object.prototype.hasOwnProperty.call(m, 'transaction')) throw genericError("Missing 'transaction' field", 'transaction');
      return admit(m['transaction'] as Uint8Array, certificates.length === 0 ? undefined : certificates);
    }),

    utxInfo,

    transactionInfo: unary((bytes) => {
      const text = txIdText(bytes);
      let id: Uint8Array;
      try {
        if (text.length > MAX_TX_ID_TEXT) throw notFound(text);
        id = decodeBase58(text);
      } catch (e) {
        if (e instanceof WeError) throw e;
        throw genericError(`Cannot parse transaction id '${text}': ${(e as Error).message}`, 'tx_id');
      }
      const found = services.chain.transaction(id);
      if (found === undefined) throw notFound(text);
      const transaction = transactionToProto(found.tx);
      return TransactionInfoResponse.encode({ height: found.height, transaction }).finish();
    }),

    unconfirmedTransactionInfo: unary((bytes) => {
      const text = txIdText(bytes);
      let id: Uint8Array;
      try {
        if (text.length > MAX_TX_ID_TEXT) throw new Error('too long');
        id = decodeBase58(text);
      } catch {
        // WE answers a bad id here with InvalidSignature (101).
        throw invalidSignature('tx_id');
      }
      const tx = services.pool.unconfirmedById(id);
      if (tx === undefined) throw notFound(text);
      return transactionToProto(tx);
    }),
  } satisfies Record<keyof typeof DEFINITION, grpc.UntypedHandleCall>;

  return { definition: DEFINITION, implementation };
}
