import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Duplex } from 'node:stream';

/** A minimal RFC 6455 client (text frames, ping/pong, close): enough to test a server's events. */
export class WebSocketClient {
  private buffer = Buffer.alloc(0);
  private closed = false;
  private receivedBytes = 0;
  /** The server sent more than `maxBytes`: the connection was closed there. */
  overflowed = false;

  private constructor(
    private readonly socket: Duplex,
    private readonly onText: (text: string, client: WebSocketClient) => void,
    private readonly maxBytes: number,
  ) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => {
      this.closed = true;
    });
    socket.on('error', () => {
      this.closed = true;
    });
  }

  static connect(
    url: URL,
    onText: (text: string, client: WebSocketClient) => void,
    timeoutMs: number,
    maxBytes: number,
  ): Promise<WebSocketClient> {
    return new Promise((resolve, reject) => {
      const req = request({
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        timeout: timeoutMs,
        headers: {
          Connection: 'Upgrade',
          Upgrade: 'websocket',
          'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
          'Sec-WebSocket-Version': '13',
        },
      });
      req.on('upgrade', (_res, socket, head) => {
        const client = new WebSocketClient(socket, onText, maxBytes);
        if (head.length > 0) client.receive(head);
        resolve(client);
      });
      req.on('response', (res) =>
        reject(new Error(`the server answered ${res.statusCode} instead of upgrading`)),
      );
      req.on('timeout', () => req.destroy(new Error(`no upgrade within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end();
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  send(text: string, opcode = 0x1): void {
    const payload = Buffer.from(text);
    const length = payload.length;
    const header =
      length < 126
        ? Buffer.from([0x80 | opcode, 0x80 | length])
        : length < 65_536
          ? Buffer.from([0x80 | opcode, 0x80 | 126, length >> 8, length & 0xff])
          : Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | 127]), bigLength(length)]);
    const mask = randomBytes(4);
    const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
    this.socket.write(Buffer.concat([header, mask, masked]));
  }

  close(): void {
    if (!this.closed) this.send('', 0x8);
    this.socket.destroy();
    this.closed = true;
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    // A server may send without end, or announce a frame of any length: past the cap, hang up.
    this.receivedBytes += chunk.length;
    if (this.receivedBytes > this.maxBytes) {
      this.overflowed = true;
      this.close();
      return;
    }
    this.buffer = Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length >= 2) {
      const opcode = this.buffer[0]! & 0x0f;
      let length = this.buffer[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.buffer.length < 4) return;
        length = this.buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.buffer.length < 10) return;
        length = Number(this.buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.buffer.length < offset + length) return;
      const payload = this.buffer.subarray(offset, offset + length);
      this.buffer = this.buffer.subarray(offset + length);
      if (opcode === 0x1) this.onText(payload.toString('utf8'), this);
      else if (opcode === 0x9) this.send(payload.toString('utf8'), 0xa);
      else if (opcode === 0x8) this.close();
    }
  }
}

function bigLength(length: number): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(BigInt(length));
  return buffer;
}
