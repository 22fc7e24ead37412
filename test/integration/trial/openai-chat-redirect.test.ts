/**
 * The OpenAI-compatible Chat Completions adapter against two real HTTP servers on 127.0.0.1: what it does
 * with a redirect. The rest of the adapter, against a recorded fetch: test/adapters/openai-chat/openai-chat.test.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { OpenAiChatModel } from '../../../src/adapters/openai-chat/index.js';

const completion = (message: unknown) => ({ choices: [{ index: 0, message, finish_reason: 'stop' }] });

describe('R-13 OpenAI-compatible chat adapter', () => {
  it('a redirect to another origin is refused: the conversation and the key never reach the other host; within the origin it is followed', async () => {
    const seen: Array<{ server: string; path: string; authorization: string | undefined; body: string }> = [];
    const serve = (name: string, handle: (req: IncomingMessage, res: ServerResponse) => void) => {
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        req.on('end', () => {
          seen.push({ server: name, path: req.url ?? '', authorization: req.headers.authorization, body });
          handle(req, res);
        });
      });
      return new Promise<{ url: string; close: () => Promise<void> }>((resolve) =>
        server.listen(0, '127.0.0.1', () =>
          resolve({
            url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
            close: () => new Promise((done) => server.close(() => done())),
          }),
        ),
      );
    };
    const other = await serve('other', (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(completion({ role: 'assistant', content: 'stolen' }))),
    );
    const endpoint = await serve('endpoint', (req, res) => {
      if (req.url === '/v1/chat/completions') res.writeHead(307, { location: `${other.url}/v1/chat/completions?x=1` }).end();
      else if (req.url === '/old/chat/completions') res.writeHead(308, { location: '/v1/here/chat/completions' }).end();
      else
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(completion({ role: 'assistant', content: 'here' })));
    });
    try {
      const at = (path: string) =>
        new OpenAiChatModel({ baseUrl: `${endpoint.url}${path}`, model: 'm', apiKey: 'sk-SECRET', timeoutMs: 5000 });
      const request = { messages: [{ role: 'user' as const, content: 'private conversation' }], tools: [] };
      const refused = await at('/v1').complete(request);
      expect(refused).toEqual({
        ok: false,
        failure: {
          kind: 'redirect',
          status: 307,
          retryable: false,
          detail: `HTTP 307: the endpoint redirected to another origin (${other.url}); not followed: the conversation and the key are sent only to ${endpoint.url}`,
        },
      });
      expect(seen.filter((s) => s.server === 'other')).toEqual([]);
      // Within the origin: followed once, with the same method, body and key.
      const followed = await at('/old').complete(request);
      expect(followed).toMatchObject({ ok: true, reply: { content: 'here' } });
      const hops = seen.slice(1);
      expect(hops.map((s) => [s.server, s.path])).toEqual([
        ['endpoint', '/old/chat/completions'],
        ['endpoint', '/v1/here/chat/completions'],
      ]);
      expect(hops.every((s) => s.authorization === 'Bearer sk-SECRET' && s.body.includes('private conversation'))).toBe(true);
    } finally {
      await endpoint.close();
      await other.close();
    }
  });
});
