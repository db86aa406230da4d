/**
 * A CPU profiler preloaded into the bench's contract processes (`--import` in their
 * NODE_OPTIONS; Node refuses `--cpu-prof` there). SDK contracts run their calls in worker
 * threads, which `--cpu-prof` would not split out either: this profiles the main thread and
 * every worker thread with the inspector, each into
 * `$CONTRACT_PROFILE_DIR/p<pid>-t<threadId>.cpuprofile` (open in Chrome DevTools). The
 * runtime stops a contract process with SIGTERM: the main thread then has each worker write
 * its profile, writes its own and exits.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';

const dir = process.env['CONTRACT_PROFILE_DIR'];
if (dir !== undefined && dir !== '') {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 200 }, () => session.post('Profiler.start')));
  const write = (then?: () => void): void =>
    session.post('Profiler.stop', (err, result) => {
      if (err === null) writeFileSync(join(dir, `p${process.pid}-t${threadId}.cpuprofile`), JSON.stringify(result.profile));
      then?.();
    });
  const stop = new BroadcastChannel('weft-contract-profiler');
  stop.unref();
  if (isMainThread) {
    process.once('SIGTERM', () => {
      stop.postMessage('stop');
      // The workers' profiles are written on their own threads; give them a moment.
      setTimeout(() => write(() => process.exit(0)), 700);
    });
  } else {
    stop.onmessage = (): void => write();
  }
}
