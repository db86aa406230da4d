/**
 * What the node keeps about a contract (WE's ContractInfo) and how it follows from the
 * transactions that create and update it; its JSON as `/contracts/info` shows it and its
 * bytes as a store keeps them.
 */
import type { Address } from '../crypto/address.js';
import { ByteReader, ByteWriter, equalBytes } from '../protocol/bytes.js';
import type { Protocol } from '../protocol/protocol.js';
import {
  CallContract,
  STORED_CONTRACT,
  VALIDATION_POLICY,
  type ContractApiVersion,
  type CreateContractTransaction,
  type StoredContract,
  type UpdateContractTransaction,
  type ValidationPolicy,
} from '../protocol/transactions/contracts.js';
import type { Transaction } from '../protocol/transactions/schema.js';

/** ContractApiVersion.Initial: what a transaction without the field stands for. */
export const INITIAL_API_VERSION: ContractApiVersion = { major: 1, minor: 0 };
/** The version of the contract API this node serves (WE 1.14's grpcProtobufVersion). */
export const CURRENT_API_VERSION: ContractApiVersion = { major: 1, minor: 10 };

const ANY_POLICY: ValidationPolicy = { type: 'any' };

export interface ContractInfo {
  /** Public key of the account that sent the CreateContract. */
  readonly creator: Uint8Array;
  /** The id of the CreateContract. */
  readonly contractId: Uint8Array;
  readonly storedContract: StoredContract;
  /** 1, plus one per applied UpdateContract. */
  readonly version: number;
  /** False once disabled. */
  readonly active: boolean;
  readonly validationPolicy: ValidationPolicy;
  readonly isConfidential: boolean;
  readonly groupParticipants: readonly Address[];
  readonly groupOwners: readonly Address[];
}

/**
 * Whether `address` (its bytes) is one of a contract's group participants — the nodes that
 * execute, validate and hold the confidential data of a confidential contract (the list is
 * empty for any other contract).
 */
export function isGroupParticipant(info: ContractInfo, address: Uint8Array): boolean {
  return info.groupParticipants.some((a) => equalBytes(a.bytes, address));
}

/**
 * The confidential contract a call goes to, when it goes to one: its calls' results are judged
 * among its group participants that are validators (the miner and every node alike).
 */
export function confidentialContractOf(call: Transaction, state: { contract(contractId: Uint8Array): ContractInfo | undefined }): ContractInfo | undefined {
  if (!CallContract.is(call)) return undefined;
  const info = state.contract(call.data.contractId);
  return info?.isConfidential === true ? info : undefined;
}

/** The stored contract a CreateContract or UpdateContract (any version) names: a V7/V6's own, an earlier one's Docker image. */
export function storedContractOf(tx: CreateContractTransaction | UpdateContractTransaction): StoredContract {
  const d = tx.data;
  if (d.storedContract !== undefined) return d.storedContract;
  return {
    engine: 'docker',
    image: d.image as string,
    imageHash: d.imageHash as string,
    apiVersion: d.apiVersion ?? INITIAL_API_VERSION,
  };
}

/** The engine a stored contract runs on. */
export const engineOf = (c: StoredContract): 'docker' | 'wasm' => c.engine;

/** ContractInfo(CreateContractTransaction). */
export function contractInfoOfCreate(tx: CreateContractTransaction): ContractInfo {
  const d = tx.data;
  return {
    creator: d.senderPublicKey,
    contractId: tx.id,
    storedContract: storedContractOf(tx),
    version: 1,
    active: true,
    validationPolicy: d.validationPolicy ?? ANY_POLICY,
    isConfidential: d.isConfidential ?? false,
    groupParticipants: d.groupParticipants ?? [],
    groupOwners: d.groupOwners ?? [],
  };
}

/**
 * ContractInfo(UpdateContractTransaction, info): the new image or bytecode, version + 1; the
 * old validation policy when the update has none; group members replaced when it names them.
 */
export function contractInfoAfterUpdate(tx: UpdateContractTransaction, info: ContractInfo): ContractInfo {
  const d = tx.data;
  return {
    ...info,
    storedContract: storedContractOf(tx),
    version: info.version + 1,
    validationPolicy: d.validationPolicy ?? info.validationPolicy,
    groupParticipants: d.groupParticipants ?? info.groupParticipants,
    groupOwners: d.groupOwners ?? info.groupOwners,
  };
}

/** Bytes of a ContractInfo for a store: creator ‖ id ‖ stored contract ‖ version ‖ active ‖ policy ‖ confidential ‖ groups. */
export function encodeContractInfo(info: ContractInfo, p: Protocol): Uint8Array {
  const w = new ByteWriter(256).shortBytes(info.creator).shortBytes(info.contractId);
  STORED_CONTRACT.write(w, info.storedContract, p);
  w.i32(info.version).bool(info.active);
  VALIDATION_POLICY.write(w, info.validationPolicy, p);
  w.bool(info.isConfidential).u16(info.groupParticipants.length);
  for (const a of info.groupParticipants) w.bytes(a.bytes);
  w.u16(info.groupOwners.length);
  for (const a of info.groupOwners) w.bytes(a.bytes);
  return w.result();
}

export function decodeContractInfo(bytes: Uint8Array, p: Protocol): ContractInfo {
  const r = new ByteReader(Uint8Array.from(bytes));
  const creator = r.shortBytes('creator');
  const contractId = r.shortBytes('contractId');
  const storedContract = STORED_CONTRACT.read(r, p, 'storedContract');
  const version = r.i32('version');
  const active = r.bool('active');
  const validationPolicy = VALIDATION_POLICY.read(r, p, 'validationPolicy');
  const isConfidential = r.bool('isConfidential');
  const addresses = (): Address[] => {
    const out: Address[] = [];
    for (let n = r.u16('group'); n > 0; n--) out.push(p.addresses.addressFromBytes(r.bytes(26, 'group')));
    return out;
  };
  const groupParticipants = addresses();
  const groupOwners = addresses();
  r.expectEnd('contract info');
  return { creator, contractId, storedContract, version, active, validationPolicy, isConfidential, groupParticipants, groupOwners };
}
