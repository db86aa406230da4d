/**
 * The bare baseline of the replication figure, in its own process as a receiving node is:
 *   node dist/bench/tcp-sink.js <dir>
 * A plain node:net server on loopback: each connection's bytes are copied to a new file in
 * <dir> as they stream, the file is fsynced, and one byte (0x01) goes back before the
 * server closes the connection. Prints "ready <host:port>" once listening.
 */
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { once } from 'node:events';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: tcp-sink <dir>');
let copies = 0;

async function receive(socket: net.Socket): Promise<void> {
  const path = join(dir!, `copy-${copies++}`);
  const file = createWriteStream(path);
  // socket.pipe (not pipeline): the socket must stay open for the acknowledgement.
  socket.pipe(file);
  await once(file, 'finish');
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const server = net.createServer({ allowHalfOpen: true }, (socket) => {
  receive(socket).then(
    () => socket.end(Uint8Array.of(1)),
    (e: unknown) => socket.destroy(e instanceof Error ? e : new Error(String(e))),
  );
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as net.AddressInfo;
  process.stdout.write(`ready 127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
