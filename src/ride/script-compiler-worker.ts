/**
 * A script compiler thread (see script-compiler-pool.ts): compiles RIDE source up to the
 * checksum, and reads and estimates a script's serialized expression with its scriptText,
 * one job at a time, answering each in turn. Nothing here needs the network's crypto: the
 * pool's thread checks and writes checksums.
 */
import { parentPort } from 'node:worker_threads';
import { readScriptExpression } from './script.js';
import { compileScriptBody } from './script-compiler.js';
import { scriptText } from './script-text.js';
import type { ScriptCompilerAnswer, ScriptCompilerJob } from './script-compiler-pool.js';
import { lowerThisThreadPriority } from '../threads/priority.js';

const port = parentPort;
if (port === null) throw new Error('script-compiler-worker runs as a worker thread');
// Anyone's source yields the core to the event loop.
lowerThisThreadPriority();

function answer(job: ScriptCompilerJob): ScriptCompilerAnswer {
  if (job.kind === 'compile') {
    const r = compileScriptBody(job.source, job.assetScript);
    return r.ok ? { ok: true, version: r.script.version, body: r.script.body, complexity: r.script.complexity } : r;
  }
  const r = readScriptExpression(job.version, job.expression);
  return r.ok ? { ok: true, complexity: r.complexity, scriptText: scriptText(r.expr) } : r;
}

port.on('message', (job: ScriptCompilerJob) => {
  let reply: ScriptCompilerAnswer;
  try {
    reply = answer(job);
  } catch (e) {
    // A bug, not a verdict on the script: the pool fails the request.
    reply = { failed: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  }
  port.postMessage(reply);
});
port.postMessage('ready');
