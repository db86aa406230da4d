/**
 * The liquid block as WE's NG state sees it: which height is liquid (a key block appended
 * since the node started, not rolled back) and the total signatures of its micro-blocks,
 * newest first. A node that restarts, or rolls back, has no liquid block until the next
 * key block or micro-block, as WE's in-memory NG state.
 */
import type { Blockchain } from '../../chain/blockchain.js';

export class LiquidBlockTracker {
  private liquidHeight: number | undefined;
  private micro: Uint8Array[] = [];

  constructor(chain: Pick<Blockchain, 'on'>) {
    chain.on((event) => {
      if (event.kind === 'block') {
        this.liquidHeight = event.height >= 2 ? event.height : undefined;
        this.micro = [];
      } else if (event.kind === 'micro-block') {
        if (this.liquidHeight !== event.height) {
          this.liquidHeight = event.height;
          this.micro = [];
        }
        this.micro.unshift(event.block.id);
      } else {
        this.liquidHeight = undefined;
        this.micro = [];
      }
    });
  }

  /** The liquid height, if the top block is liquid at `height`. */
  liquidAt(height: number): boolean {
    return this.liquidHeight === height;
  }

  microBlockIds(height: number): readonly Uint8Array[] {
    return this.liquidAt(height) ? [...this.micro] : [];
  }
}
