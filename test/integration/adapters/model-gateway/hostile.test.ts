/**
 * The forward gateway in front of a hostile endpoint (a raw `node:net` server): a compression bomb
 * (gzip, deflate, br) is cut at the bound on its INFLATED size (docs/model-gateway.md: 32 MiB, here a
 * small bound so a bomb just over it proves the rule), an invalid status line (`099`, `000`, a control
 * character in the message) is never passed on: each is that request's failure — a 502 in the format's
 * shape, the exchange recorded with `gatewayFailure` and the reason — and the next request is served.
 * No exception escapes (vitest fails a test on an unhandled error).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ForwardGateway } from '../../../../src/adapters/model-gateway/forward.js';
import { ModelGateway } from '../../../../src/adapters/model-gateway/model-gateway.js';
import { DEFAULT_BODY_LIMIT } from '../../../../src/adapters/model-gateway/model-gateway.js';
import type { ModelExchange } from '../../../../src/ports/model-gateway.port.js';
import {
  OK_CONTENT,
  startHostileEndpoint,
  type HostileEndpoint,
  type HostileShape,
} from '../../../support/hostile-model-endpoint.js';

const TOKEN = 'run-token-hostile';
const MODEL = 'm-1';
const LIMIT = 1024 * 1024;

let endpoint: HostileEndpoint | undefined;
let gateway: { close(): Promise<void> } | undefined;
afterEach(async () => {
  await gateway?.close();
  await endpoint?.close();
  gateway = endpoint = undefined;
});

async function forwardTo(script: HostileShape[], limit = LIMIT) {
  endpoint = await startHostileEndpoint(script, MODEL);
  const exchanges: ModelExchange[] = [];
  const forward = new ForwardGateway({
    baseUrl: endpoint.baseUrl,
    apiKey: 'sk-real',
    token: TOKEN,
    models: [MODEL],
    onExchange: (e) => exchanges.push(e),
    bodyLimitBytes: limit,
  });
  gateway = forward;
  const address = await forward.start();
  const ask = async (): Promise<{ status: number; text: string } | { broken: string }> => {
    try {
      const response = await fetch(`${address.openAiBaseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'accept-encoding': 'identity' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
      });
      return { status: response.status, text: await response.text() };
    } catch (error) {
      return { broken: String(error) };
    }
  };
  return { exchanges, ask };
}

describe('model gateway, forward mode: a hostile endpoint', () => {
  it.each(['gzip', 'deflate', 'br'] as const)(
    'a %s answer inflating just past the bound is cut there: 502, recorded as the gateway failure; the next request is served',
    async (coding) => {
      const { exchanges, ask } = await forwardTo([{ bomb: coding, inflatedBytes: LIMIT + 64 * 1024 }]);
      const first = await ask();
      // The bomb's first chunk already inflates past the bound: nothing was sent yet, so a clean 502.
      expect(first).toMatchObject({ status: 502 });
      expect(JSON.parse((first as { text: string }).text)).toMatchObject({
        error: { message: expect.stringMatching(/larger than the model gateway reads \(1 MiB once decompressed\)/) },
      });
      expect(exchanges[0]).toMatchObject({
        status: 502,
        gatewayFailure: true,
        error:
          "the model endpoint's answer is larger than the model gateway reads (1 MiB once decompressed): the request was ended",
      });
      expect(exchanges[0]!.reply).toBeUndefined();
      const second = await ask();
      expect(second).toMatchObject({ status: 200 });
      expect(exchanges[1]).toMatchObject({ status: 200, reply: { content: OK_CONTENT } });
      expect(exchanges[1]!.gatewayFailure).toBeUndefined();
    },
  );

  it('a gzip answer just under the bound passes compressed and is read back', async () => {
    const { exchanges, ask } = await forwardTo([{ bomb: 'gzip', inflatedBytes: LIMIT - 1024 }]);
    const first = await ask();
    expect(first).toMatchObject({ status: 200 });
    expect((first as { text: string }).text).toHaveLength(LIMIT - 1024);
    expect(exchanges[0]).toMatchObject({ status: 200, error: expect.stringMatching(/could not be read back/) });
    expect(exchanges[0]!.gatewayFailure).toBeUndefined();
  });

  it('a 600 MiB gzip bomb at the documented 32 MiB bound: the request ends after a few MB on the wire, memory stays bounded', async () => {
    const { exchanges, ask } = await forwardTo([{ bomb: 'gzip', inflatedBytes: 600 * 1024 * 1024 }], DEFAULT_BODY_LIMIT);
    const before = process.memoryUsage().rss;
    const first = await ask();
    expect('broken' in first || first.status === 502, JSON.stringify(first).slice(0, 200)).toBe(true);
    expect(exchanges[0]).toMatchObject({
      gatewayFailure: true,
      error:
        "the model endpoint's answer is larger than the model gateway reads (32 MiB once decompressed): the request was ended",
    });
    // Before the bound, the 600 MiB were inflated whole (and then could not become a string).
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
    expect(await ask()).toMatchObject({ status: 200 });
  });

  it.each([
    ['status-099', /invalid status line \(status 99, message "Odd"\)/],
    ['status-000', /invalid status line \(status 0, message "Zero"\)/],
    ['status-control-char', /invalid status line \(status 200, message "O\\u0001K" has a control character\)/],
  ] as const)('%s is never passed on: 502 with the reason, recorded; the next request is served', async (shape, why) => {
    const { exchanges, ask } = await forwardTo([shape]);
    const first = await ask();
    expect(first).toMatchObject({ status: 502 });
    expect((JSON.parse((first as { text: string }).text) as { error: { message: string } }).error.message).toMatch(why);
    expect(exchanges[0]).toMatchObject({ status: 502, gatewayFailure: true, error: expect.stringMatching(why) });
    expect(await ask()).toMatchObject({ status: 200 });
    expect(exchanges[1]).toMatchObject({ status: 200, reply: { content: OK_CONTENT } });
  });
});

describe('model gateway, stub mode: a request it cannot read', () => {
  it('GET /v1/models/%E0%A4%A is a 400, and the gateway goes on serving', async () => {
    const stub = new ModelGateway({
      token: TOKEN,
      models: [MODEL],
      model: {
        check: async () => ({ ok: true }),
        complete: async () => ({ ok: true, reply: { content: 'x', toolCalls: [], finishReason: 'stop' } }),
      },
      onExchange: () => undefined,
    });
    gateway = stub;
    const address = await stub.start();
    const headers = { authorization: `Bearer ${TOKEN}` };
    const bad = await fetch(`${address.openAiBaseUrl}/models/%E0%A4%A`, { headers });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { message: 'the model id in the path is not percent-encoded UTF-8' } });
    const good = await fetch(`${address.openAiBaseUrl}/models/${MODEL}`, { headers });
    expect(good.status).toBe(200);
  });

  it('a model that throws is that request’s 500, recorded as the gateway failure; the next request is served', async () => {
    const exchanges: ModelExchange[] = [];
    let calls = 0;
    const stub = new ModelGateway({
      token: TOKEN,
      models: [MODEL],
      model: {
        check: async () => ({ ok: true }),
        complete: async () => {
          if (++calls === 1) throw new RangeError('Invalid string length');
          return { ok: true, reply: { content: 'fine', toolCalls: [], finishReason: 'stop' } };
        },
      },
      onExchange: (e) => exchanges.push(e),
    });
    gateway = stub;
    const address = await stub.start();
    const ask = () =>
      fetch(`${address.openAiBaseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
      });
    const first = await ask();
    expect(first.status).toBe(500);
    expect(await first.json()).toMatchObject({
      error: { message: 'the model gateway failed on this request: Invalid string length' },
    });
    expect(exchanges[0]).toMatchObject({
      status: 500,
      gatewayFailure: true,
      error: 'the model gateway failed on this request: Invalid string length',
    });
    expect((await ask()).status).toBe(200);
    expect(exchanges[1]).toMatchObject({ status: 200, reply: { content: 'fine' } });
  });
});
