/**
 * The gRPC server contracts talk to (WE's ContractExecutionComponents services): the
 * service definitions of `@wavesenterprise/js-contract-grpc-client@1.10.0` registered
 * with grpc-js, plus 1.14's BlockService, `current_block_info` and lease operations
 * (proto-1.14.ts). Services, paths and field numbers are WE's, so a contract built for a
 * WE node connects unchanged.
 *
 * Every call but Connect carries an execution token (`authorization` metadata, no
 * "Bearer"); reads see the state of the execution the token names (or the current state
 * for a finished one or a read-only token). Errors carry WE's trailers `error-code` and
 * `error-message` with the status WE derives from the HTTP status of the ApiError;
 * execution bookkeeping errors (unknown execution, wrong tx id, unknown connection) are
 * INVALID_ARGUMENT with the message, as WE's ContractExecutionException mapping.
 *
 * Not served (UNIMPLEMENTED, as on a 1.14 node or not yet in Weft): PkiService,
 * PrivacyService.GetPolicyItemData/Info (not in 1.14's open node), and
 * TransactionService.TransactionInfo — it answers WE's generated union of every
 * transaction's protobuf form, which Weft does not have yet.
 */
import * as grpc from '@grpc/grpc-js';
import {
  AddressServiceService,
  type AddressDataRequest,
  type AddressDataResponse,
  type AddressesResponse,
  type AssetBalanceRequest,
  type AssetBalanceResponse,
} from '@wavesenterprise/js-contract-grpc-client/contract/contract_address_service.js';
import {
  ContractServiceService,
  ContractTransactionResponse,
  ExecutionSuccessRequest,
  type AssetId,
  type CalculateAssetIdRequest,
  type CommitExecutionResponse,
  type ConnectionRequest,
  type ContractBalancesRequest,
  type ContractBalancesResponse,
  type ContractKeyRequest,
  type ContractKeyResponse,
  type ContractKeysRequest,
  type ContractKeysResponse,
  type ExecutionErrorRequest,
} from '@wavesenterprise/js-contract-grpc-client/contract/contract_contract_service.js';
import {
  PermissionServiceService,
  type AddressesPermissionsRequest,
  type AddressesPermissionsResponse,
  type PermissionsRequest,
  type PermissionsResponse,
  type RoleInfo,
} from '@wavesenterprise/js-contract-grpc-client/contract/contract_permission_service.js';
import {
  PrivacyServiceService,
  type PolicyHashesRequest,
  type PolicyHashesResponse,
  type PolicyOwnersRequest,
  type PolicyOwnersResponse,
  type PolicyRecipientsRequest,
  type PolicyRecipientsResponse,
} from '@wavesenterprise/js-contract-grpc-client/contract/contract_privacy_service.js';
import {
  TransactionServiceService,
  type TransactionExistsRequest,
  type TransactionExistsResponse,
} from '@wavesenterprise/js-contract-grpc-client/contract/contract_transaction_service.js';
import { UtilServiceService, type NodeTimeResponse } from '@wavesenterprise/js-contract-grpc-client/contract/contract_util_service.js';
import { base58OrUndefined, decodeBase58, encodeBase58 } from '../../crypto/encoding.js';
import { forbiddenKeyChars } from '../../protocol/transactions/contracts.js';
import type { DataEntry } from '../../protocol/transactions/fields.js';
import { roleFromByte, ROLES } from '../../protocol/transactions/permissions.js';
import { decidingOp, isOpActive, orderedOps } from '../../state/permissions.js';
import type { ExecutionBroker, PushedTransaction, TransactionStream } from '../broker.js';
import type { ContractInfo } from '../../state/contract-info.js';
import { KeyPattern, keysMatching, TimeSlices } from '../../state/key-pattern.js';
import type { BlockInfo, ContractExecutionView, ContractNodeContext } from '../state.js';
import type { ContractTokens, ExecutionClaim } from '../tokens.js';
import type { ReadingsJournal } from '../confidential/readings.js';
import { contractStatusService, type ContractStatusServiceDeps } from './status-service.js';
import type { GrpcEndpoint } from './endpoint.js';
import { assetOperationFromMessage, bigintOf, dataEntryFromMessage, dataEntryToMessage, long } from './mapping.js';
import {
  BLOCK_SERVICE_DEFINITION,
  decodeCommittedOperations,
  encodeCurrentBlockInfoField,
  type AssetOperationMessage,
  type BlockHeaderMessage,
  type BlockHeaderRef,
} from './proto-1.14.js';
import {
  ContractExecutionException,
  contractNotFound,
  customValidationError,
  dataKeyNotExists,
  invalidAssetId,
  invalidContractKeys,
  missingAuthorizationMetadata,
  WeError,
} from '../../errors/catalogue.js';

export interface ContractGrpcServerDeps {
  readonly tokens: ContractTokens;
  readonly broker: ExecutionBroker;
  /** The state reads go to when a token names no running execution. */
  currentView(): ContractExecutionView;
  readonly node: ContractNodeContext;
  readonly log?: { warn(obj: object, msg: string): void; debug(obj: object, msg: string): void };
  /** The public ContractStatusService (status-service.ts) on the same port; not served when absent. */
  readonly statusService?: ContractStatusServiceDeps;
}

const WEST_DECIMALS = 8;

/** WE's asGrpcStatus: the ApiError's HTTP status as a gRPC status. */
function statusOf(httpStatus: number): grpc.status {
  switch (httpStatus) {
    case 400:
      return grpc.status.INVALID_ARGUMENT;
    case 401:
      return grpc.status.UNAUTHENTICATED;
    case 403:
      return grpc.status.PERMISSION_DENIED;
    case 404:
      return grpc.status.NOT_FOUND;
    case 429:
    case 502:
    case 503:
    case 504:
      return grpc.status.UNAVAILABLE;
    case 500:
      return grpc.status.INTERNAL;
    case 501:
      return grpc.status.UNIMPLEMENTED;
    default:
      return grpc.status.UNKNOWN;
  }
}

/** A thrown value as grpc-js sends it: WE's trailers for API errors. */
export function grpcErrorOf(e: unknown): Partial<grpc.StatusObject> {
  if (e instanceof WeError) {
    const metadata = new grpc.Metadata();
    metadata.set('error-code', String(e.code));
    metadata.set('error-message', e.message);
    return { code: statusOf(e.status), details: e.message, metadata };
  }
  if (e instanceof ContractExecutionException) return { code: grpc.status.INVALID_ARGUMENT, details: e.message };
  return { code: grpc.status.INTERNAL, details: e instanceof Error ? e.message : String(e) };
}

interface ExecutionContext {
  readonly claim: ExecutionClaim;
  readonly view: ContractExecutionView;
  /** The running execution's read journal (a confidential call). */
  readonly readings?: ReadingsJournal;
}

type Handler<Req, Res> = (request: Req, ctx: ExecutionContext, call: grpc.ServerUnaryCall<Req, Res>) => Res | Promise<Res>;

/** ExecutionSuccessRequest as the 1.10 stubs decode it, with 1.14's operations alongside. */
interface CommitSuccessMessage extends ExecutionSuccessRequest {
  readonly operations114: readonly AssetOperationMessage[];
}

/** Items from `offset`, at most `limit` of them (the contract service's paging). */
export function applyPage<T>(items: readonly T[], offset: number | undefined, limit: number | undefined): T[] {
  const from = offset === undefined ? 0 : Math.max(0, offset);
  if (limit === undefined) return items.slice(from);
  return limit <= 0 ? [] : items.slice(from, from + limit);
}

/** Keys of a contract matched against a `matches` pattern get a turn of the event loop after each slice of this many ms. */
export const KEY_FILTER_SLICE_MS = 5;

/** The keys the whole of which match `regex` (WE's `Pattern.matches`, run in linear time: state/key-pattern.ts), the event loop given its turns meanwhile. */
export function keysMatchingPattern<T>(items: readonly T[], keyOf: (item: T) => string, regex: string): Promise<T[]> {
  return keysMatching(items, keyOf, KeyPattern.compile(regex), new TimeSlices(KEY_FILTER_SLICE_MS));
}

export class ContractGrpcServer {
  /** Registers the contract services (and the ContractStatusService when given) on `endpoint`. */
  constructor(
    private readonly deps: ContractGrpcServerDeps,
    endpoint: GrpcEndpoint,
  ) {
    endpoint.serve(this.contractServiceDefinition(), this.contractService());
    endpoint.serve(AddressServiceService, this.addressService());
    endpoint.serve(PermissionServiceService, this.permissionService());
    endpoint.serve(PrivacyServiceService, this.privacyService());
    endpoint.serve(TransactionServiceService, this.transactionService());
    endpoint.serve(UtilServiceService, this.utilService());
    endpoint.serve(BLOCK_SERVICE_DEFINITION, this.blockService());
    if (deps.statusService !== undefined) {
      const statuses = contractStatusService(deps.statusService, grpcErrorOf);
      endpoint.serve(statuses.definition, statuses.implementation);
    }
  }

  // --- auth and plumbing -----------------------------------------------------

  private token(metadata: grpc.Metadata): string {
    const values = metadata.get('authorization');
    const token = values[0];
    if (token === undefined || String(token) === '') throw missingAuthorizationMetadata();
    return String(token);
  }

  private async executionContext(metadata: grpc.Metadata): Promise<ExecutionContext> {
    const claim = await this.deps.tokens.verifyExecution(this.token(metadata));
    const live = claim.executionId === '' ? undefined : this.deps.broker.execution(claim.executionId);
    if (live !== undefined && live.txIdBase58 === claim.txId)
      return { claim, view: live.view, ...(live.readings === undefined ? {} : { readings: live.readings }) };
    return { claim, view: this.deps.currentView() };
  }

  private unary<Req, Res>(handler: Handler<Req, Res>): grpc.handleUnaryCall<Req, Res> {
    return (call, callback) => {
      this.executionContext(call.metadata)
        .then((ctx) => handler(call.request, ctx, call))
        .then(
          (res) => callback(null, res),
          (e: unknown) => {
            if (!(e instanceof WeError) && !(e instanceof ContractExecutionException)) this.deps.log?.warn({ err: e }, 'contract gRPC call failed');
            callback(grpcErrorOf(e));
          },
        );
    };
  }

  /** WE's findContract: an undecodable id is "not found" under the text given. */
  private findContract(view: ContractExecutionView, contractId: string): ContractInfo {
    const id = base58OrUndefined(contractId);
    const info = id === undefined ? undefined : view.contract(id);
    if (info === undefined) throw contractNotFound(contractId);
    return info;
  }

  private parseAddress(view: ContractExecutionView, text: string): Uint8Array {
    return view.protocol.addresses.parseAddress(text, 'address').bytes;
  }

  // --- ContractService ---------------------------------------------------------

  private contractServiceDefinition(): grpc.ServiceDefinition {
    const d = ContractServiceService;
    // Every push of a block carries the same block info: its field is encoded once (protobufjs' reflection per push
    // was a tenth of the push's cost).
    let blockInfo: { readonly info: BlockInfo; readonly field: Uint8Array } | undefined;
    const blockInfoField = (info: BlockInfo): Uint8Array => {
      const held = blockInfo?.info;
      if (
        blockInfo === undefined ||
        held?.height !== info.height ||
        held.timestamp !== info.timestamp ||
        held.minerAddress !== info.minerAddress ||
        held.reference !== info.reference
      ) {
        const field = encodeCurrentBlockInfoField({
          height: BigInt(info.height),
          timestamp: info.timestamp,
          minerAddress: info.minerAddress,
          reference: info.reference,
        });
        blockInfo = { info, field };
      }
      return blockInfo.field;
    };
    return {
      ...d,
      connect: {
        ...d.connect,
        responseSerialize: (m: PushedTransaction): Buffer =>
          Buffer.concat([
            ContractTransactionResponse.encode({ transaction: m.transaction, authToken: m.authToken }).finish(),
            blockInfoField(m.currentBlockInfo),
          ]),
      },
      commitExecutionSuccess: {
        ...d.commitExecutionSuccess,
        requestDeserialize: (bytes: Buffer): CommitSuccessMessage => ({
          ...ExecutionSuccessRequest.decode(bytes),
          operations114: decodeCommittedOperations(bytes),
        }),
      },
    };
  }

  private contractService(): grpc.UntypedServiceImplementation {
    return {
      connect: (call: grpc.ServerWritableStream<ConnectionRequest, PushedTransaction>) => void this.connect(call),
      commitExecutionSuccess: this.unary<CommitSuccessMessage, CommitExecutionResponse>((req, { claim }) => {
        const results = req.results.map(dataEntryFromMessage);
        const protocol = this.deps.currentView().protocol;
        const assetOperations = req.operations114.map((op) => assetOperationFromMessage(protocol, op));
        this.deps.broker.commit(claim.executionId, req.txId, { kind: 'success', results, assetOperations });
        return {};
      }),
      commitExecutionError: this.unary<ExecutionErrorRequest, CommitExecutionResponse>((req, { claim }) => {
        this.deps.broker.commit(claim.executionId, req.txId, { kind: 'error', code: req.code, message: req.message });
        return {};
      }),
      getContractKeys: this.unary<ContractKeysRequest, ContractKeysResponse>(async (req, { claim, view, readings }) => {
        const info = this.findContract(view, req.contractId);
        if (info.isConfidential && encodeBase58(info.contractId) !== claim.contractId) {
          throw customValidationError(
            `Only confidential contract itself is allowed to get confidential keys: requesting contract id -> '${claim.contractId}', required contract id -> '${req.contractId}'`,
          );
        }
        let entries: DataEntry[];
        if (req.matches === undefined && req.keysFilter !== undefined) {
          entries = [...new Set(req.keysFilter.keys)].flatMap((k) => view.contractData(info.contractId, k) ?? []);
        } else {
          const all = view.contractKeys(info.contractId);
          const keys = req.matches === undefined ? all : await keysMatchingPattern(all, (k) => k, req.matches);
          entries = applyPage(keys, req.offset, req.limit).flatMap((k) => view.contractData(info.contractId, k) ?? []);
        }
        readings?.keys(info.contractId, { keys: req.keysFilter?.keys, matches: req.matches, offset: req.offset, limit: req.limit }, entries);
        return { entries: entries.map(dataEntryToMessage) };
      }),
      getContractKey: this.unary<ContractKeyRequest, ContractKeyResponse>((req, { view, readings }) => {
        const bad = forbiddenKeyChars(req.key);
        if (bad !== null) throw invalidContractKeys([[req.key, bad]], 'key');
        const info = this.findContract(view, req.contractId);
        const entry = view.contractData(info.contractId, req.key);
        if (entry === undefined) throw dataKeyNotExists(req.key);
        readings?.key(info.contractId, req.key, entry);
        return { entry: dataEntryToMessage(entry) };
      }),
      getContractBalances: this.unary<ContractBalancesRequest, ContractBalancesResponse>((req, { claim, view, readings }) => {
        const contractId = decodeBase58(claim.contractId);
        const balances = req.assetsIds.map((text) => {
          const assetId = this.assetIdOf(view, text);
          return {
            assetId: assetId === null ? undefined : text,
            amount: view.balance(contractId, assetId),
            decimals: assetId === null ? WEST_DECIMALS : (view.asset(assetId)?.decimals ?? WEST_DECIMALS),
          };
        });
        readings?.balances(contractId, req.assetsIds, balances);
        return { assetsBalances: balances.map((b) => ({ ...b, amount: long(b.amount) })) };
      }),
      calculateAssetId: this.unary<CalculateAssetIdRequest, AssetId>((req, { claim, view }) => {
        const txId = decodeBase58(claim.txId);
        const input = new Uint8Array(txId.length + 1);
        input.set(txId);
        input[txId.length] = req.nonce & 0xff;
        return { value: encodeBase58(view.protocol.crypto.fastHash(input)) };
      }),
    };
  }

  /** WE's contractAssetBalance asset id: '' is WEST; otherwise Base58 of a known asset. */
  private assetIdOf(view: ContractExecutionView, text: string): Uint8Array | null {
    if (text === '') return null;
    let id: Uint8Array;
    try {
      id = decodeBase58(text);
    } catch {
      throw customValidationError(`Failed to decode base58 asset id value '${text}'`, 'assetsIds');
    }
    if (view.asset(id) === undefined) throw invalidAssetId(`Unable to find a description for AssetId 'Some(${text})'`, 'assetsIds');
    return id;
  }

  private async connect(call: grpc.ServerWritableStream<ConnectionRequest, PushedTransaction>): Promise<void> {
    const connectionId = call.request.connectionId;
    try {
      const claim = await this.deps.tokens.verifyConnection(this.token(call.metadata));
      // WE takes the id from the request alone; Weft also wants the token to be the one issued for it.
      if (claim.connectionId !== connectionId) throw new ContractExecutionException(`Token was not issued for connection id '${connectionId}'`);
    } catch (e) {
      call.emit('error', grpcErrorOf(e));
      return;
    }
    let ended = false;
    const stream: TransactionStream = {
      push: (message) => {
        if (ended) throw new Error('stream ended');
        call.write(message);
      },
      end: () => {
        if (ended) return;
        ended = true;
        call.end();
      },
    };
    const onGone = (): void => {
      if (ended) return;
      ended = true;
      this.deps.broker.disconnected(connectionId, stream);
    };
    call.on('cancelled', onGone);
    call.on('close', onGone);
    call.on('error', onGone);
    const verdict = this.deps.broker.connect(connectionId, stream);
    if (verdict === 'unknown') {
      ended = true;
      call.emit('error', grpcErrorOf(new ContractExecutionException(`Unknown connection id '${connectionId}'`)));
      return;
    }
    this.deps.log?.debug({ connectionId, verdict }, 'contract connected');
  }

  // --- AddressService ----------------------------------------------------------

  private addressService(): grpc.UntypedServiceImplementation {
    return {
      getAddresses: this.unary<unknown, AddressesResponse>(() => ({ addresses: [...this.deps.node.walletAddresses()] })),
      getAddressData: this.unary<AddressDataRequest, AddressDataResponse>((req, { view }) => {
        const address = this.parseAddress(view, req.address);
        const entries = applyPage(view.dataEntries(address), req.offset, req.limit);
        return { entries: entries.map(dataEntryToMessage) };
      }),
      getAssetBalance: this.unary<AssetBalanceRequest, AssetBalanceResponse>((req, { view }) => {
        const address = view.protocol.addresses.addressFromBytes(Uint8Array.from(req.address), 'address').bytes;
        let assetId: Uint8Array | null = null;
        let decimals = WEST_DECIMALS;
        if (req.assetId !== undefined) {
          assetId = Uint8Array.from(req.assetId);
          if (assetId.length !== 32) throw invalidAssetId(`Invalid AssetId length '${assetId.length}', expected: '32'`, 'assetId');
          const asset = view.asset(assetId);
          if (asset === undefined) throw invalidAssetId(`Unable to find a description for AssetId '${encodeBase58(assetId)}'`, 'assetId');
          decimals = asset.decimals;
        }
        return { assetId: req.assetId, amount: long(view.balance(address, assetId)), decimals };
      }),
    };
  }

  // --- PermissionService -------------------------------------------------------

  private rolesAt(view: ContractExecutionView, address: Uint8Array, at: bigint): RoleInfo[] {
    const ops = view.permissionOps(address);
    const roles: RoleInfo[] = [];
    for (const role of new Set(orderedOps(ops).map((o) => o.role))) {
      const op = decidingOp(ops, role, at);
      if (op === undefined || !isOpActive(op, at)) continue;
      roles.push({ role: roleFromByte(role), dueTimestamp: op.dueTimestamp === null ? undefined : long(op.dueTimestamp) });
    }
    return roles.sort((a, b) => ROLES[a.role as keyof typeof ROLES] - ROLES[b.role as keyof typeof ROLES]);
  }

  private permissionService(): grpc.UntypedServiceImplementation {
    return {
      getPermissions: this.unary<PermissionsRequest, PermissionsResponse>((req, { view }) => {
        const at = req.timestamp === undefined ? this.deps.node.now() : bigintOf(req.timestamp);
        return { roles: this.rolesAt(view, this.parseAddress(view, req.address), at), timestamp: long(at) };
      }),
      getPermissionsForAddresses: this.unary<AddressesPermissionsRequest, AddressesPermissionsResponse>((req, { view }) => {
        const at = bigintOf(req.timestamp);
        return {
          addressToRoles: req.addresses.map((a) => ({ address: a, roles: this.rolesAt(view, this.parseAddress(view, a), at) })),
          timestamp: long(at),
        };
      }),
    };
  }

  // --- PrivacyService ----------------------------------------------------------

  private policyOf(view: ContractExecutionView, text: string): { id: Uint8Array; owners: readonly Uint8Array[]; recipients: readonly Uint8Array[] } {
    const id = base58OrUndefined(text);
    const policy = id === undefined ? undefined : view.policy(id);
    if (id === undefined || policy === undefined) {
      throw new WeError('PolicyDoesNotExist', 612, `The requested policy ${text} does not exist`, 'policyId');
    }
    return { id, ...policy };
  }

  private privacyService(): grpc.UntypedServiceImplementation {
    const addresses = (view: ContractExecutionView, list: readonly Uint8Array[]): string[] =>
      list.map((a) => view.protocol.addresses.addressFromBytes(a).toString());
    return {
      getPolicyRecipients: this.unary<PolicyRecipientsRequest, PolicyRecipientsResponse>((req, { view }) => ({
        recipients: addresses(view, this.policyOf(view, req.policyId).recipients),
      })),
      getPolicyOwners: this.unary<PolicyOwnersRequest, PolicyOwnersResponse>((req, { view }) => ({
        owners: addresses(view, this.policyOf(view, req.policyId).owners),
      })),
      getPolicyHashes: this.unary<PolicyHashesRequest, PolicyHashesResponse>((req, { view }) => ({
        hashes: view.policyDataHashes(this.policyOf(view, req.policyId).id).map((e) => encodeBase58(e.hash)),
      })),
    };
  }

  // --- TransactionService, UtilService, BlockService ----------------------------

  private transactionService(): grpc.UntypedServiceImplementation {
    return {
      transactionExists: this.unary<TransactionExistsRequest, TransactionExistsResponse>((req, { view }) => {
        let id: Uint8Array;
        try {
          id = decodeBase58(req.txId);
        } catch (e) {
          throw customValidationError(`Cannot parse transaction id '${req.txId}': ${e instanceof Error ? e.message : String(e)}`, 'txId');
        }
        return { exists: view.transactionHeight(id) !== undefined };
      }),
    };
  }

  private utilService(): grpc.UntypedServiceImplementation {
    return {
      getNodeTime: this.unary<unknown, NodeTimeResponse>(() => ({ system: long(this.deps.node.systemTime()), ntp: long(this.deps.node.now()) })),
    };
  }

  private blockService(): grpc.UntypedServiceImplementation {
    return {
      getBlockHeader: this.unary<BlockHeaderRef, BlockHeaderMessage>((req, { view }) => {
        if (req === undefined) throw customValidationError("Empty both fields 'signature' and 'height' in request");
        let header;
        if ('height' in req) {
          header = req.height > 0n && req.height <= 0x7fffffffn ? this.deps.node.blockHeaderAt(Number(req.height)) : undefined;
          if (header === undefined)
            throw new WeError('BlockDoesNotExist', 301, `block at height '${Number(BigInt.asIntN(32, req.height))}' does not exist`, 'height', 404);
        } else {
          const id = base58OrUndefined(req.signature);
          header = id === undefined ? undefined : this.deps.node.blockHeaderById(id);
          if (header === undefined) {
            if (id === undefined) throw customValidationError("Empty both fields 'signature' and 'height' in request");
            throw new WeError('BlockDoesNotExist', 301, `block with signature '${req.signature}' does not exist`, 'signature', 404);
          }
        }
        return {
          version: header.version,
          height: BigInt(header.height),
          blockSignature: encodeBase58(header.signature),
          reference: encodeBase58(header.reference),
          minerAddress: view.protocol.addresses.fromPublicKey(header.generator).toString(),
          txCount: header.transactionCount,
          timestamp: header.timestamp,
        };
      }),
    };
  }
}
