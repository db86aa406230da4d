/**
 * The node's named loggers: levels as logback gives them (own, dotted ancestor, ROOT), and
 * a level change that really changes what reaches the output.
 */
import assert from 'node:assert/strict';
import { setImmediate as flush } from 'node:timers/promises';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import { isLogLevelName, levelOfPino, NodeLoggers } from '../../src/node/logging.js';

/** A pino logger writing JSON lines into an array. */
function capture(): { logger: pino.Logger; lines: () => Array<Record<string, unknown>> } {
  const out: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      out.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((l) => l !== ''),
      );
      done();
    },
  });
  return { logger: pino({ base: undefined }, stream), lines: () => out.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('NodeLoggers', () => {
  it('lists ROOT first, then every name in order, with its effective level', () => {
    const loggers = new NodeLoggers(pino({ level: 'silent' }), 'INFO', ['pool', 'api', 'miner']);
    assert.deepEqual(loggers.levels(), [
      { name: 'ROOT', level: 'INFO' },
      { name: 'api', level: 'INFO' },
      { name: 'miner', level: 'INFO' },
      { name: 'pool', level: 'INFO' },
    ]);
    loggers.setLevel('miner', 'DEBUG');
    loggers.setLevel('root', 'ERROR'); // ROOT in any case, as logback
    assert.deepEqual(
      loggers.levels().map((l) => `${l.name}-${l.level}`),
      ['ROOT-ERROR', 'api-ERROR', 'miner-DEBUG', 'pool-ERROR'],
    );
  });

  it('a dotted name follows its nearest ancestor with a level of its own', () => {
    const loggers = new NodeLoggers(pino({ level: 'silent' }), 'WARN');
    const child = loggers.get('api.http.requests');
    assert.equal(loggers.effective('api.http.requests'), 'WARN');
    loggers.setLevel('api', 'TRACE');
    assert.equal(loggers.effective('api.http.requests'), 'TRACE');
    assert.equal(child.level, 'trace');
    loggers.setLevel('api.http', 'ERROR');
    assert.equal(loggers.effective('api.http.requests'), 'ERROR');
    assert.equal(child.level, 'error');
    assert.equal(loggers.effective('apiary'), 'WARN', 'a prefix without a dot is no ancestor');
  });

  it('a level change shows in the output: debug lines appear after DEBUG, only for that logger', async () => {
    const { logger, lines } = capture();
    const loggers = new NodeLoggers(logger, 'INFO', ['api', 'chain']);
    const api = loggers.get('api');
    const chain = loggers.get('chain');
    api.debug('before');
    chain.info('chain info');
    loggers.setLevel('api', 'DEBUG');
    api.debug('after');
    chain.debug('chain debug stays hidden');
    // Children a logger hands out later (Fastify's per-request loggers) start at its level.
    api.child({ reqId: 1 }).debug('request child');
    loggers.setLevel('api', 'ALL');
    api.trace('everything');
    loggers.setLevel('ROOT', 'ERROR');
    chain.info('hidden by ROOT');
    api.trace('still everything');
    await flush();
    assert.deepEqual(
      lines().map((l) => `${String(l['module'])}:${String(l['msg'])}`),
      ['chain:chain info', 'api:after', 'api:request child', 'api:everything', 'api:still everything'],
    );
  });

  it('levels: the six WE accepts, and pino levels read back', () => {
    for (const l of ['ALL', 'TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR']) assert.ok(isLogLevelName(l));
    for (const l of ['OFF', 'debug', 'FATAL', '']) assert.ok(!isLogLevelName(l));
    assert.equal(levelOfPino('silent'), 'OFF');
    assert.equal(levelOfPino('fatal'), 'ERROR');
    assert.equal(levelOfPino('debug'), 'DEBUG');
  });
});
