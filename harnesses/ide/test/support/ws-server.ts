import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

function frame(text: string): Buffer {
  const payload = Buffer.from(text);
  const header =
    payload.length < 126
      ? Buffer.from([0x81, payload.length])
      : Buffer.from([0x81, 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([header, payload]);
}

/** Reads masked client text frames (small ones: enough for tests). */
function onFrames(socket: Duplex, handle: (text: string) => void): void {
  let buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    while (buffer.length >= 6) {
      let length = buffer[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        length = buffer.readUInt16BE(2);
        offset = 4;
      }
      if (buffer.length < offset + 4 + length) return;
      const mask = buffer.subarray(offset, offset + 4);
      const data = Buffer.from(
        buffer.subarray(offset + 4, offset + 4 + length).map((b, i) => b ^ mask[i % 4]!),
      );
      const opcode = buffer[0]! & 0x0f;
      buffer = buffer.subarray(offset + 4 + length);
      if (opcode === 0x1) handle(data.toString('utf8'));
      if (opcode === 0x8) socket.end();
    }
  });
}

/**
 * A test server: plain WebSocket echo on `/echo`, and a Socket.IO (engine.io v4) endpoint that
 * answers `ping` events with `pong` carrying the same data.
 */
export async function wsServer(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  server.on('upgrade', (req, socket) => {
    const accept = createHash('sha1')
      .update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    if (req.url?.startsWith('/socket.io/')) {
      socket.write(frame('0{"sid":"s1","pingInterval":25000,"pingTimeout":20000}'));
      onFrames(socket, (text) => {
        if (text === '40') socket.write(frame('40{"sid":"n1"}'));
        else if (text.startsWith('42')) {
          const [event, data] = JSON.parse(text.slice(2)) as [string, unknown];
          if (event === 'ping') socket.write(frame(`42${JSON.stringify(['pong', data])}`));
        }
      });
    } else onFrames(socket, (text) => socket.write(frame(text)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server };
}
