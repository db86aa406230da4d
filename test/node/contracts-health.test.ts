/**
 * The `docker` health check the contract engine gives the node (`/node/healthcheck`
 * without `service`): healthy while the Docker daemon answers its ping, failing with WE's
 * reason once it stops answering; disabled (no check) when contracts run without Docker.
 * The daemon here is a loopback HTTP server answering Docker's `/_ping` as the Engine API
 * does, so the test can make it go away; the real daemon is pinged the same way by
 * test/contracts/sdk-docker.test.ts.
 */
import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { contractsHealthChecks, type NodeContracts } from '../../src/node/contracts-wiring.js';
import { startTestEngine } from '../../devkit/contracts/engine.js';

function fakeDaemon(): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url?.endsWith('/_ping') === true) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('OK');
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const asNodeContracts = (engine: NodeContracts['engine']): NodeContracts => ({
  engine,
  service: undefined as never,
  readOnlyToken: () => Promise.reject(new Error('unused')),
  serveConfidentialContracts: () => undefined,
  close: () => engine.close(),
});

describe('the docker health check', () => {
  it('passes while the daemon answers and fails with the reason once it is gone', async () => {
    const daemon = await fakeDaemon();
    const port = (daemon.address() as AddressInfo).port;
    const te = await startTestEngine({ dockerEngine: { enable: true, dockerHost: `tcp://127.0.0.1:${port}` } });
    try {
      const check = contractsHealthChecks(asNodeContracts(te.engine)).docker;
      assert.ok(check !== undefined, 'a node running Docker contracts gives the check');
      await check();
      await new Promise<void>((resolve) => daemon.close(() => resolve()));
      await assert.rejects(check(), /Can't connect to docker daemon/);
    } finally {
      daemon.close();
      await te.close();
    }
  });

  it('is not given when contracts run without Docker (the service is disabled, 637)', async () => {
    const te = await startTestEngine();
    try {
      assert.deepEqual(Object.keys(contractsHealthChecks(asNodeContracts(te.engine))), []);
      assert.deepEqual(Object.keys(contractsHealthChecks(undefined)), []);
    } finally {
      await te.close();
    }
  });
});
