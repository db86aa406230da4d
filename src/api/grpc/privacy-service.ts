/**
 * PrivacyPublicService (WE's PrivacyServiceImpl), over the confidential-data service
 * `/privacy/*` uses (src/privacy/service.ts) and the same guards (routes/privacy.ts):
 *
 * - the item methods — GetPolicyItemData, GetPolicyItemLargeData, GetPolicyItemInfo,
 *   PolicyItemDataExists, SendData, SendLargeData, ForceSync — need the privacy
 *   authorisation (no key: UNAUTHENTICATED 618; a wrong one: PERMISSION_DENIED 614), after
 *   "storage switched off" (613), as WE's PrivacyGrpcAuth checks;
 * - Recipients, Owners and Hashes are user reads (open under API-key auth).
 *
 * SendData builds a version-3 PolicyDataHash (WE's buildPolicyItem), `broadcast_tx` saying
 * whether it goes into the pool; no metadata is 199 `Empty metadata`, a watcher node 638, no
 * `info` 199 `Empty data info`; `certificates` come as DER bytes. SendLargeData takes a
 * client stream: `metadata` first (within `privacy.service.meta-data-accumulation-timeout`,
 * checked before any data is read), then `file` chunks, the first not empty; an empty chunk or
 * the stream's end ends the data. The chunks flow into the storage through the service's
 * back-pressured buffer: the client's stream is read only as fast as the storage writes, so
 * memory stays bounded whatever the size. Its `connection-id` metadata names the upload as
 * WE's ConnectionIdsHolder does (643 for a bad or taken one).
 *
 * GetPolicyItemLargeData streams the stored bytes in messages of at most
 * LARGE_DATA_MESSAGE_BYTES, written only while the client's stream has room (grpc-js
 * `write()` false → wait for `drain`): a slow reader holds one chunk of the storage's, not
 * the item. Feature 180 must be active for both large-item methods (648).
 */
import { Readable } from 'node:stream';
import type * as grpc from '@grpc/grpc-js';
import {
  PrivacyPublicServiceService,
  type PolicyIdRequest,
  type PolicyItemDataResponse,
  type PolicyItemRequest,
  type SendDataMetadata,
  type SendDataRequest as SendDataMessage,
  type SendDataResponse,
  type SendLargeDataRequest,
} from '@wavesenterprise/js-contract-grpc-client/privacy/privacy_public_service.js';
import type { PolicyDataHashTransaction as PolicyDataHashMessage } from '@wavesenterprise/js-contract-grpc-client/managed/policy_data_hash_transaction.js';
import { Transaction as TransactionMessage } from '@wavesenterprise/js-contract-grpc-client/managed/transaction.js';
import { transactionToProto } from '../../protocol/proto/transactions.js';
import { bigintOf, long } from '../../contracts/grpc/mapping.js';
import { ConnectionIds, type StreamPlace } from '../../contracts/grpc/stream-limits.js';
import { encodeBase64 } from '../../crypto/encoding.js';
import type { Protocol } from '../../protocol/protocol.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import type { SendDataRequest } from '../../privacy/requests.js';
import type { StoredData } from '../../privacy/storage/storage.js';
import { customValidationError, genericError } from '../../errors/catalogue.js';
import { privacyPolicies, privacyWithStorage, refuseOnWatcher, requireLargeObjects } from '../routes/privacy.js';
import { unary, type PublicGrpcDeps, type PublicGrpcService } from './public-service.js';

/** The largest message GetPolicyItemLargeData sends (clients take 4 MiB by default). */
export const LARGE_DATA_MESSAGE_BYTES = 1024 * 1024;

/** A PolicyDataHash in its protobuf form (WE's PolicyDataHashTransaction.toInnerProto): the inner message of its Transaction form. */
export function policyDataHashMessage(tx: Transaction): PolicyDataHashMessage {
  const inner = TransactionMessage.decode(transactionToProto(tx)).policyDataHashTransaction;
  if (inner === undefined) throw new Error(`transaction ${tx.idBase58} is not a PolicyDataHash`);
  return inner;
}

const sendDataResponse = (tx: Transaction): SendDataResponse => ({ txVersion: tx.version, tx: policyDataHashMessage(tx) });

/** A send request from its gRPC metadata (WE's buildPolicyItem / processMetadata: always version 3). */
function sendDataRequest(protocol: Protocol, m: SendDataMetadata): SendDataRequest {
  const info = m.info;
  if (info === undefined) throw genericError('Empty data info', 'info');
  return {
    version: 3,
    sender: m.senderAddress,
    password: m.password ?? null,
    policyId: m.policyId,
    hash: m.dataHash,
    info: { filename: info.filename, size: info.size, timestamp: bigintOf(info.timestamp), author: info.author, comment: info.comment },
    fee: bigintOf(m.fee),
    feeAssetId: m.feeAssetId ?? null,
    atomicBadge:
      m.atomicBadge === undefined
        ? null
        : { trustedSender: m.atomicBadge.trustedSender === undefined ? null : protocol.addresses.addressFromBytes(m.atomicBadge.trustedSender).toString() },
    certificates: m.certificates.map((c) => encodeBase64(c)),
  };
}

/** Writes a stored item to a server stream, waiting for `drain` whenever the stream is full; stops when the client goes away. */
async function streamStoredData(call: grpc.ServerWritableStream<PolicyItemRequest, PolicyItemDataResponse>, data: StoredData): Promise<void> {
  let gone = false;
  let wake: (() => void) | undefined;
  const resume = (): void => {
    wake?.();
    wake = undefined;
  };
  const onGone = (): void => {
    gone = true;
    resume();
  };
  call.on('drain', resume);
  call.on('cancelled', onGone);
  call.on('close', onGone);
  try {
    for await (const chunk of data.stream as AsyncIterable<Buffer>) {
      for (let at = 0; at < chunk.length; at += LARGE_DATA_MESSAGE_BYTES) {
        if (gone) return;
        const part = chunk.subarray(at, at + LARGE_DATA_MESSAGE_BYTES);
        if (!call.write({ data: part })) await new Promise<void>((resolve) => (wake = resolve));
      }
    }
    if (!gone) call.end();
  } finally {
    data.stream.destroy();
    call.off('drain', resume);
  }
}

/** SendLargeData's first message, within the privacy service's timeout: its metadata. */
async function firstMetadata(messages: AsyncIterator<SendLargeDataRequest>, timeoutMs: number): Promise<SendDataMetadata> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(customValidationError(`Unexpected error: the metadata part did not arrive within ${timeoutMs} ms`, 'metadata')), timeoutMs);
  });
  try {
    const first = await Promise.race([messages.next(), timeout]);
    if (first.done === true) throw customValidationError('Unexpected state: the stream ended before its metadata part', 'metadata');
    if (first.value.metadata === undefined) {
      if (first.value.file !== undefined) throw customValidationError('Metadata part must be in the head of the stream', 'metadata');
      throw customValidationError("Unexpected stream part: neither 'metadata' nor 'file'", 'metadata');
    }
    return first.value.metadata;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The data chunks after the metadata, pulled from the client's stream only as the storage
 * takes them: the first must not be empty; an empty one, or the stream's end, ends the data.
 */
async function* uploadChunks(messages: AsyncIterator<SendLargeDataRequest>): AsyncGenerator<Uint8Array> {
  let first = true;
  for (;;) {
    const next = await messages.next();
    if (next.done === true) {
      if (first) throw customValidationError('Empty data stream', 'file');
      return;
    }
    const file = next.value.file;
    if (file === undefined) throw customValidationError("Unexpected stream part: 'metadata' after the head of the stream", 'file');
    if (file.content.length === 0) {
      if (first) throw customValidationError('Empty data stream', 'file');
      return;
    }
    first = false;
    yield file.content;
  }
}

export function privacyPublicService(deps: PublicGrpcDeps): PublicGrpcService {
  const { services } = deps;
  /** An item method: storage on (613), then the privacy authorisation. */
  const withPrivacy = (metadata: grpc.Metadata): ReturnType<typeof privacyWithStorage> => {
    const privacy = privacyWithStorage(services);
    deps.authorize(metadata, 'privacy');
    return privacy;
  };
  const uploads = new ConnectionIds();

  const getPolicyItemLargeData = (call: grpc.ServerWritableStream<PolicyItemRequest, PolicyItemDataResponse>): void => {
    const run = async (): Promise<void> => {
      const privacy = withPrivacy(call.metadata);
      requireLargeObjects(services);
      await streamStoredData(call, await privacy.getLargeData(call.request.policyId, call.request.dataHash));
    };
    run().catch((e: unknown) => {
      if (!call.cancelled) call.emit('error', deps.errorOf(e));
    });
  };

  const sendLargeData = (call: grpc.ServerReadableStream<SendLargeDataRequest, SendDataResponse>, callback: grpc.sendUnaryData<SendDataResponse>): void => {
    let place: StreamPlace | undefined;
    const run = async (): Promise<SendDataResponse> => {
      const privacy = withPrivacy(call.metadata);
      refuseOnWatcher(services);
      requireLargeObjects(services);
      place = uploads.take(call.metadata);
      const messages = (call as AsyncIterable<SendLargeDataRequest>)[Symbol.asyncIterator]();
      const metadata = await firstMetadata(messages, privacy.requestPartTimeoutMs);
      const upload = await privacy.checkLargeUpload(sendDataRequest(services.protocol, metadata));
      // A refusal of the stream's own (a bad part) is the answer, whatever the storage made of the broken data.
      let partError: unknown;
      const data = Readable.from(
        (async function* () {
          try {
            yield* uploadChunks(messages);
          } catch (e) {
            partError = e;
            throw e;
          }
        })(),
        { objectMode: false, highWaterMark: 64 * 1024 },
      );
      try {
        return sendDataResponse(await privacy.sendLargeData(upload, data, metadata.broadcastTx));
      } catch (e) {
        throw partError ?? e;
      }
    };
    run().then(
      (response) => {
        place?.release();
        callback(null, response);
      },
      (e: unknown) => {
        place?.release();
        callback(deps.errorOf(e));
      },
    );
  };

  return {
    definition: PrivacyPublicServiceService,
    implementation: {
      getPolicyItemData: unary(deps, 'by-handler', async (request: PolicyItemRequest, call) => ({
        data: await withPrivacy(call.metadata).getData(request.policyId, request.dataHash),
      })),
      getPolicyItemLargeData,
      getPolicyItemInfo: unary(deps, 'by-handler', async (request: PolicyItemRequest, call) => {
        const item = await withPrivacy(call.metadata).getInfo(request.policyId, request.dataHash);
        return {
          senderAddress: item.sender,
          policyId: item.policy,
          info: { ...item.info, timestamp: long(item.info.timestamp) },
          dataHash: item.hash,
        };
      }),
      policyItemDataExists: unary(deps, 'by-handler', async (request: PolicyItemRequest, call) => ({
        exists: await withPrivacy(call.metadata).dataExists(request.policyId, request.dataHash),
      })),
      sendData: unary(deps, 'by-handler', async (request: SendDataMessage, call) => {
        const privacy = withPrivacy(call.metadata);
        const metadata = request.metadata;
        if (metadata === undefined) throw customValidationError('Empty metadata', 'metadata');
        refuseOnWatcher(services);
        return sendDataResponse(await privacy.sendData(sendDataRequest(services.protocol, metadata), { bytes: request.data }, metadata.broadcastTx));
      }),
      sendLargeData,
      recipients: unary(deps, 'user', (request: PolicyIdRequest) => ({ addresses: privacyPolicies(services).recipients(request.policyId) })),
      owners: unary(deps, 'user', (request: PolicyIdRequest) => ({ addresses: privacyPolicies(services).owners(request.policyId) })),
      hashes: unary(deps, 'user', (request: PolicyIdRequest) => ({ hashes: privacyPolicies(services).hashes(request.policyId) })),
      forceSync: unary(deps, 'by-handler', async (request: PolicyIdRequest, call) => ({
        forceRestarted: await withPrivacy(call.metadata).forceSyncPolicy(request.policyId),
      })),
    },
  };
}
