// The relay protocol's two pieces, shared by the relay (relay.mjs, plain JavaScript run by node
// inside the sandbox's network namespace) and the runner's end (src/sandbox-network.ts).

/**
 * Reads the `PORT\n` header put first on a connection and hands the paused socket on with the
 * bytes that followed it. A malformed header closes it.
 * @param {import('node:net').Socket} socket
 * @param {(port: number, rest: Buffer) => void} use
 */
export function readPortHeader(socket, use) {
  let head = Buffer.alloc(0);
  const onData = (chunk) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf(10);
    if (end === -1) {
      if (head.length > 8) socket.destroy();
      return;
    }
    socket.off('data', onData);
    socket.pause();
    const port = Number(head.subarray(0, end).toString('ascii'));
    if (!Number.isInteger(port) || port < 1 || port > 65_535) socket.destroy();
    else use(port, head.subarray(end + 1));
  };
  socket.on('data', onData);
  socket.on('error', () => socket.destroy());
}

/**
 * Joins two sockets both ways until either side closes; `rest` goes to `b` first.
 * @param {import('node:net').Socket} a
 * @param {import('node:net').Socket} b
 * @param {Buffer} [rest]
 */
export function splice(a, b, rest) {
  const close = () => {
    a.destroy();
    b.destroy();
  };
  for (const socket of [a, b]) {
    socket.on('error', close);
    socket.on('close', close);
  }
  if (rest && rest.length > 0) b.write(rest);
  a.pipe(b);
  b.pipe(a);
  a.resume();
}
