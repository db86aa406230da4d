/**
 * The node's contract engine as node.ts will start it (src/node/contracts-wiring.ts): off by
 * default, on with `node.contracts.enable`; contracts see the node's real blocks (a chain of
 * signed blocks from the API fixture) through BlockService and `current_block_info`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { BLOCK_SERVICE_DEFINITION, type BlockHeaderMessage, type BlockHeaderRef } from '../../src/contracts/grpc/proto-1.14.js';
import { DEFAULT_DOCKER_ENGINE } from '../../src/contracts/settings.js';
import { contractNodeContext, startNodeContracts } from '../../src/node/contracts-wiring.js';
import { fixtureChain } from '../api/fixture.js';
import { tempDir } from '../../devkit/tmp.js';
import { node, protocol } from '../../devkit/contracts/engine.js';
import { ContractTestState } from '../../devkit/contracts/state.js';

const BlockClient = grpc.makeGenericClientConstructor(BLOCK_SERVICE_DEFINITION, 'BlockService');

function header(client: grpc.Client, ref: BlockHeaderRef, token: string): Promise<BlockHeaderMessage> {
  const m = new grpc.Metadata();
  m.set('authorization', token);
  return new Promise((resolve, reject) =>
    (
      client as unknown as { getBlockHeader(r: BlockHeaderRef, m: grpc.Metadata, cb: (e: grpc.ServiceError | null, v: BlockHeaderMessage) => void): void }
    ).getBlockHeader(ref, m, (e, v) => (e === null ? resolve(v) : reject(e))),
  );
}

describe('the contract engine of a node', () => {
  const dataDirectory = tempDir('weft-contracts-wiring-');
  const fixture = fixtureChain();
  const state = ContractTestState.create(protocol);
  const options = {
    dataDirectory,
    protocol,
    ownerKey: node,
    now: () => BigInt(Date.now()),
    currentState: () => state,
    chain: fixture.services.chain,
    walletAddresses: () => ['3Nwallet'],
    log: pino({ level: 'silent' }),
  };

  it('tells contracts about the last block as current_block_info', () => {
    const chain = fixture.services.chain;
    const top = chain.blockAt(chain.height())!;
    assert.deepEqual(contractNodeContext(options).lastBlockInfo(), {
      height: chain.height(),
      timestamp: top.timestamp,
      minerAddress: top.generatorAddress,
      reference: encodeBase58(top.reference),
    });
  });

  it('is off unless node.contracts (or docker-engine) enables it', async () => {
    assert.equal(await startNodeContracts({ ...options, settings: undefined }), undefined);
  });

  it('serves blocks of the chain to contracts, and a read-only token for /debug/createGrpcAuth', async () => {
    const contracts = await startNodeContracts({
      ...options,
      settings: {
        enable: true,
        dockerEngine: DEFAULT_DOCKER_ENGINE,
        wasmFuelLimit: 20_000,
        grpc: { bindAddress: '127.0.0.1', port: 0 },
        packages: [],
        packageCacheDirectory: `${dataDirectory}/packages`,
      },
    });
    assert.ok(contracts !== undefined);
    const client = new BlockClient(`127.0.0.1:${contracts.engine.grpcPort}`, grpc.credentials.createInsecure());
    try {
      const token = await contracts.readOnlyToken(new Uint8Array(32).fill(1));
      const chain = fixture.services.chain;
      const top = chain.height();
      const block = chain.blockAt(top)!;
      const byHeight = await header(client, { height: BigInt(top) }, token);
      assert.deepEqual(byHeight, {
        version: block.version,
        height: BigInt(top),
        blockSignature: block.idBase58,
        reference: encodeBase58(block.reference),
        minerAddress: block.generatorAddress,
        txCount: block.transactionCount,
        timestamp: block.timestamp,
      });
      const first = chain.blockAt(1)!;
      assert.equal((await header(client, { signature: first.idBase58 }, token)).height, 1n);
      assert.equal(contracts.service.state(), state);
    } finally {
      client.close();
      await contracts.close();
    }
  });
});
