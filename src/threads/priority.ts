/**
 * Threads that run what users send — a RIDE compile, a WASM contract call — run at a lower
 * CPU priority than the event loop: on a machine whose cores are all busy, the kernel gives
 * the event loop (REST, peers, the miner) the core first, and the untrusted work the time
 * left over. Without it, one compile thread kept busy by a flood of large sources stretched
 * the event loop's turns to 150 ms on a loaded 2-core machine while their own work took 20 ms.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** The niceness of such threads (0 is the event loop's; 19 the lowest): 10 weighs about a tenth of 0 under the kernel's fair scheduler. */
export const UNTRUSTED_WORK_NICENESS = 10;

/**
 * Lowers the calling thread's CPU priority to `niceness` (Linux: setpriority on the thread's
 * own id, which touches no other thread of the process; raising niceness needs no privilege).
 * Returns false where the platform cannot (the thread then keeps the process's priority).
 */
export function lowerThisThreadPriority(niceness: number = UNTRUSTED_WORK_NICENESS): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // /proc/thread-self links to /proc/<pid>/task/<tid>.
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, niceness);
    return true;
  } catch {
    return false;
  }
}
