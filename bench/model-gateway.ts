/**
 * The model gateway's own cost per model request in forward mode (docs/model-gateway.md): a scripted
 * Chat Completions model in this process (real HTTP on 127.0.0.1) answers the same request directly and
 * through a `ForwardGateway` in front of it (which forwards it, pipes the answer back and reads a copy of it
 * for the transcript). Plain JSON and streamed (server-sent events, one `write` per event), each request
 * timed from send to the last byte read by the client; direct and gateway alternate request by request.
 * Prints the medians, their ratio and the difference; writes bench/results/model-gateway.json.
 *
 *   npm run bench:gateway [-- --requests 2000]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ForwardGateway } from '../src/adapters/model-gateway/forward.js';
import { chatCompletions } from '../src/adapters/model-gateway/chat-completions.js';
import type { ChatReply } from '../src/ports/chat-model.port.js';
import { median, nowMs, p99 } from './measure.js';

const MODEL = 'bench-model';
const KEY = 'sk-bench';
const TOKEN = 'bench-token';
/** A typical agent turn's answer: a short text and one tool call. */
const REPLY: ChatReply = {
  content: 'I will book the room now and then confirm it to you.',
  toolCalls: [
    {
      id: 'call_1',
      name: 'create_booking',
      argumentsText: '{"guest":"Ann Lee","date":"2026-05-01","room":"standard","idempotency_key":"ann-lee-2026-05-01"}',
    },
  ],
  finishReason: null,
};
const STAMP = { id: 'bench', created: 1_700_000_000 };
const PLAIN = JSON.stringify(chatCompletions.encodeJson(REPLY, MODEL, STAMP));
const FRAMES = chatCompletions.encodeStream(REPLY, MODEL, STAMP, {
  model: MODEL,
  stream: true,
  chat: { messages: [], tools: [] },
});

/** A conversation of a few turns (about 2 kB), as an agent sends it after a tool call. */
function requestBody(stream: boolean): string {
  const messages = [
    { role: 'system', content: 'You book rooms. '.repeat(20) },
    { role: 'user', content: 'Book a standard room for Ann Lee on 2026-05-01.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'search_bookings', arguments: '{"guest":"Ann Lee"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_0', content: '[]' },
  ];
  const tools = ['create_booking', 'search_bookings'].map((name) => ({
    type: 'function',
    function: { name, description: 'A booking tool.', parameters: { type: 'object', properties: { guest: { type: 'string' } } } },
  }));
  return JSON.stringify({ model: MODEL, messages, tools, stream });
}

export interface GatewayFigures {
  requests: number;
  plain: PathFigures;
  streamed: PathFigures;
}
interface PathFigures {
  directMedianMs: number;
  gatewayMedianMs: number;
  ratio: number;
  addedMedianMs: number;
  directP99Ms: number;
  gatewayP99Ms: number;
}

async function timed(url: string, key: string, body: string): Promise<number> {
  const started = nowMs();
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
  await response.arrayBuffer();
  const ms = nowMs() - started;
  if (response.status !== 200) throw new Error(`the bench's request was answered ${response.status}`);
  return ms;
}

export async function measureGateway(requests: number): Promise<GatewayFigures> {
  const model = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      if ((JSON.parse(text) as { stream?: boolean }).stream !== true)
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(PLAIN);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const frame of FRAMES) res.write(frame);
      res.end();
    });
  });
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
  let recorded = 0;
  const gateway = new ForwardGateway({ baseUrl: base, apiKey: KEY, token: TOKEN, models: [MODEL], onExchange: () => recorded++ });
  const address = await gateway.start();
  const figures = async (stream: boolean): Promise<PathFigures> => {
    const body = requestBody(stream);
    const direct: number[] = [];
    const through: number[] = [];
    for (let i = 0; i < 200; i++) {
      await timed(`${base}/chat/completions`, KEY, body);
      await timed(`${address.openAiBaseUrl}/chat/completions`, TOKEN, body);
    }
    for (let i = 0; i < requests; i++) {
      // Alternating, the order swapped every other request: both paths see the same machine.
      if (i % 2 === 0) {
        direct.push(await timed(`${base}/chat/completions`, KEY, body));
        through.push(await timed(`${address.openAiBaseUrl}/chat/completions`, TOKEN, body));
      } else {
        through.push(await timed(`${address.openAiBaseUrl}/chat/completions`, TOKEN, body));
        direct.push(await timed(`${base}/chat/completions`, KEY, body));
      }
    }
    const d = median(direct);
    const g = median(through);
    return {
      directMedianMs: d,
      gatewayMedianMs: g,
      ratio: g / d,
      addedMedianMs: g - d,
      directP99Ms: p99(direct),
      gatewayP99Ms: p99(through),
    };
  };
  try {
    const plain = await figures(false);
    const streamed = await figures(true);
    if (recorded !== 2 * (requests + 200))
      throw new Error(`the gateway recorded ${recorded} exchanges, not ${2 * (requests + 200)}`);
    return { requests, plain, streamed };
  } finally {
    await gateway.close();
    model.closeAllConnections();
    await new Promise((resolve) => model.close(resolve));
  }
}

function flag(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? undefined : process.argv[index + 1];
}

if (process.argv[1]?.endsWith('model-gateway.js') === true) {
  const requests = Number(flag('requests') ?? '2000');
  const load = loadavg()[0]!;
  const figures = await measureGateway(requests);
  const row = (name: string, f: PathFigures) =>
    `${name.padEnd(8)} | ${f.directMedianMs.toFixed(3).padStart(9)} | ${f.gatewayMedianMs.toFixed(3).padStart(10)} | ${f.ratio.toFixed(2).padStart(5)} | ${f.addedMedianMs.toFixed(3).padStart(8)} | ${f.directP99Ms.toFixed(2).padStart(6)} / ${f.gatewayP99Ms.toFixed(2)}`;
  process.stdout.write(
    [
      `model gateway, forward mode: ${requests} Chat Completions requests per path and mode, direct and through the gateway alternating`,
      'mode     | direct ms | gateway ms | ratio | added ms | p99 ms direct / gateway',
      row('plain', figures.plain),
      row('streamed', figures.streamed),
      '',
    ].join('\n'),
  );
  const out = join(dirname(fileURLToPath(import.meta.url)), '../../bench/results/model-gateway.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: {
          cpu: cpus()[0]?.model ?? '?',
          cores: availableParallelism(),
          node: process.version,
          load1: [load, loadavg()[0]],
        },
        ...figures,
      },
      null,
      2,
    )}\n`,
  );
}
