/**
 * Blocks, micro-blocks and the genesis block: see the modules under ./blocks/.
 */
export * from './blocks/consensus.js';
export * from './blocks/features.js';
export * from './blocks/block.js';
export * from './blocks/micro-block.js';
export * from './blocks/genesis-block.js';
