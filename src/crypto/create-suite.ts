/**
 * The suite of a crypto type, loaded on demand (the GOST library is large). Kept apart from
 * suite.ts, whose types both suites implement, so that neither suite imports the file that
 * imports it.
 */
import type { CryptoSuite, CryptoType } from './suite.js';

export async function createCryptoSuite(type: CryptoType): Promise<CryptoSuite> {
  if (type === 'waves') {
    const { createWavesSuite } = await import('./waves.js');
    return createWavesSuite();
  }
  if (type === 'gost') {
    const { createGostSuite } = await import('./gost.js');
    return createGostSuite();
  }
  throw new Error(`Unknown crypto type '${String(type)}'`);
}
