/**
 * A hostile model endpoint for the forward gateway's tests: a raw `node:net` server (so it can send
 * status lines no HTTP library would write) answering each POST with the next shape of its script and
 * every GET (the trial's pre-flight `GET /models`) with a 404. A compression bomb is made as it is sent,
 * never held: zeros compressed chunk by chunk, stopped when the gateway hangs up.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Transform } from 'node:stream';
import { constants, createBrotliCompress, createDeflate, createGzip } from 'node:zlib';

export type HostileShape =
  'ok' | 'status-099' | 'status-000' | 'status-control-char' | { bomb: 'gzip' | 'deflate' | 'br'; inflatedBytes: number };

export interface HostileEndpoint {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  /** The shapes the POSTs got, in order. */
  served: HostileShape[];
  /** Bytes of the bombs sent on the wire (compressed), in order. */
  bombWireBytes: number[];
  close(): Promise<void>;
}

export const OK_CONTENT = 'All done.';

export function okBody(model: string): string {
  return JSON.stringify({
    id: 'chatcmpl-hostile',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: OK_CONTENT }, finish_reason: 'stop' }],
  });
}

/** Answers the POSTs with `script` in order; past its end, `ok`. */
export async function startHostileEndpoint(script: readonly HostileShape[], model = 'm-1'): Promise<HostileEndpoint> {
  const endpoint: HostileEndpoint = { baseUrl: '', served: [], bombWireBytes: [], close: async () => undefined };
  const sockets = new Set<Socket>();
  let posts = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = head.subarray(0, end).toString('latin1').split('\r\n');
      const length = Number(/^content-length:\s*(\d+)/im.exec(lines.join('\n'))?.[1] ?? 0);
      if (head.length - end - 4 < length) return;
      socket.off('data', onData);
      if (lines[0]!.startsWith('GET ')) {
        const body = '{"error":{"message":"no model list here"}}';
        return void socket.end(
          `HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
        );
      }
      const shape = script[posts++] ?? 'ok';
      endpoint.served.push(shape);
      answer(socket, shape, model, endpoint);
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  endpoint.close = () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return endpoint;
}

function answer(socket: Socket, shape: HostileShape, model: string, endpoint: HostileEndpoint): void {
  const plain = (statusLine: string) => {
    const body = okBody(model);
    socket.end(
      `${statusLine}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  };
  if (shape === 'ok') return plain('HTTP/1.1 200 OK');
  if (shape === 'status-099') return plain('HTTP/1.1 099 Odd');
  if (shape === 'status-000') return plain('HTTP/1.1 000 Zero');
  if (shape === 'status-control-char') return plain('HTTP/1.1 200 O\x01K');
  const coding = shape.bomb;
  socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: ${coding}\r\nconnection: close\r\n\r\n`);
  const compressor: Transform =
    coding === 'gzip'
      ? createGzip({ level: 9 })
      : coding === 'deflate'
        ? createDeflate({ level: 9 })
        : createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
  const slot = endpoint.bombWireBytes.push(0) - 1;
  compressor.on('data', (chunk: Buffer) => {
    endpoint.bombWireBytes[slot]! += chunk.length;
    if (!socket.write(chunk)) compressor.pause();
  });
  socket.on('drain', () => compressor.resume());
  compressor.on('end', () => socket.end());
  socket.on('close', () => compressor.destroy());
  // The body a client would read: `{"x":"000…"}` — JSON, so only its size is wrong.
  const zeros = Buffer.alloc(1024 * 1024, 0x30);
  let left = shape.inflatedBytes - 8;
  compressor.write('{"x":"');
  const pump = () => {
    while (left > 0 && !socket.destroyed) {
      const piece = zeros.subarray(0, Math.min(left, zeros.length));
      left -= piece.length;
      if (!compressor.write(piece)) return void compressor.once('drain', pump);
    }
    if (!socket.destroyed) compressor.end('"}');
  };
  pump();
}
