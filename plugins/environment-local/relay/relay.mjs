// The network relay of a hardened local sandbox. It runs inside the sandbox's network namespace
// (where commands run) with the host's file system, and is the only way across:
// - in: `listen ADDRESS PORT` lines on stdin make it listen at ADDRESS:PORT in the namespace and
//   carry each connection to the runner's unix socket `host.sock` (which reaches only the ports a
//   host process serves at the sandbox's host address: the model gateway);
// - out: connections to the unix socket `expose.sock` are carried to 127.0.0.1:PORT in the
//   namespace (`Sandbox.expose`).
// Both sockets carry `PORT\n` first. The relay exits when stdin closes (its sandbox closed).
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { readPortHeader, splice } from './socket-pipe.mjs';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: relay.mjs DIR\n');
  process.exit(2);
}

const expose = createServer((socket) => {
  readPortHeader(socket, (port, rest) => splice(socket, createConnection({ host: '127.0.0.1', port }), rest));
});

const listening = new Map();

function listen(address, port) {
  if (listening.has(port)) return Promise.resolve();
  const server = createServer((socket) => {
    socket.pause();
    const host = createConnection({ path: join(dir, 'host.sock') });
    host.write(`${port}\n`);
    splice(socket, host);
  });
  listening.set(port, server);
  return new Promise((resolve, reject) => {
    server.once('error', (error) => {
      listening.delete(port);
      reject(error);
    });
    server.listen(port, address, () => resolve());
  });
}

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
    const [verb, address, port] = buffered.slice(0, end).split(' ');
    buffered = buffered.slice(end + 1);
    if (verb !== 'listen') continue;
    listen(address, Number(port)).then(
      () => process.stdout.write(`ok ${port}\n`),
      (error) => process.stdout.write(`error ${port} ${error.code ?? error.message}\n`),
    );
  }
});
process.stdin.on('end', () => process.exit(0));

expose.listen(join(dir, 'expose.sock'), () => process.stdout.write(`ready ${process.pid}\n`));
