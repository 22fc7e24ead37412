/**
 * `proxy --model-gateway HOST:PORT --base-url URL`: an agent run by hand sends its model requests
 * through the proxy's gateway (here the official `openai` client) to a scripted model endpoint in this
 * test, and its MCP calls through the proxy (the whole CLI in-process, raw JSON-RPC lines) to the counting
 * fixture upstream as a real process. The upstream's ledger counts the executions; the report says who
 * sent each repeat — decided once the gateway has seen the agent's model side, `unknown` before.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { executions } from '../../../e2e/fixtures/lib/ledger.mjs';
import { waitFor } from '../../../e2e/fixtures/lib/raw-child.mjs';
import { FIXTURES } from '../../support/proxy-harness.js';
import type { Finding } from '../../../src/domain/report/findings.js';
import type { Report } from '../../../src/domain/report/report.js';
import { startLinesProxy, type LinesProxy } from '../../support/cli-proxy-lines.js';
import { requireExample } from '../../support/example-clients.js';

const OpenAI = requireExample<any>('openai');
const COUNTING = ['--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, 'counting-server.mjs')];
const ORDER = { item: 'pen', quantity: 2 };
const TOOLS = [{ type: 'function', function: { name: 'create_order', parameters: { type: 'object', properties: {} } } }];

/** A Chat Completions endpoint whose every answer asks for `create_order` once more (ids call_1, call_2, …). */
interface ScriptedModel {
  url: string;
  authorizations: string[];
  close(): Promise<void>;
}

async function scriptedModel(): Promise<ScriptedModel> {
  const authorizations: string[] = [];
  let answers = 0;
  const server: Server = createServer((req: IncomingMessage, res) => {
    authorizations.push(req.headers.authorization ?? '');
    req.resume().on('end', () => {
      if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
      const id = `call_${++answers}`;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${answers}`,
          object: 'chat.completion',
          created: 0,
          model: 'scripted',
          choices: [
            {
              index: 0,
              finish_reason: 'tool_calls',
              message: {
                role: 'assistant',
                content: null,
                tool_calls: [{ id, type: 'function', function: { name: 'create_order', arguments: JSON.stringify(ORDER) } }],
              },
            },
          ],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    authorizations,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let model: ScriptedModel;
let proxy: LinesProxy | undefined;
beforeAll(async () => {
  model = await scriptedModel();
  return () => model.close();
});
afterEach(async () => {
  await proxy?.dispose();
  proxy = undefined;
});

/** The proxy with its gateway on a free port; answers the gateway's OpenAI base URL from its stderr line. */
async function gatewayProxy(): Promise<{ p: LinesProxy; baseURL: string }> {
  const p = (proxy = startLinesProxy([...COUNTING, '--model-gateway', '127.0.0.1:0', '--base-url', model.url]));
  const line = await waitFor(() => /model gateway on (\S+)/.exec(p.stderr()), 30_000, 'the gateway line');
  await p.initialize();
  return { p, baseURL: line[1]! };
}

type ReportWithFindings = { report: Report; patches: Array<{ id: string }>; findings?: Finding[] };

describe('R-14.2 proxy --model-gateway: the agent run by hand, its model side seen through the gateway', () => {
  it('R-14.1 R-14.4 a re-send no model answer asked for is runtime (a finding), a new tool call model, one after a user turn user; ledger 4; the agent keeps its own key', async () => {
    const { p, baseURL } = await gatewayProxy();
    const client = new OpenAI({ baseURL, apiKey: 'sk-the-agents-own', maxRetries: 0 });
    const settled = (n: number) => async () =>
      (p.report().report.operations[0]?.attempts ?? 0) === n && p.report().report.coverage.inFlight === 0;
    const messages: unknown[] = [{ role: 'user', content: 'Order two pens.' }];
    const ask = async () => {
      const answer = await client.chat.completions.create({ model: 'gpt-x', messages, tools: TOOLS });
      const message = answer.choices[0].message;
      messages.push(message);
      return message.tool_calls[0] as { id: string };
    };
    const carryOut = async (n: number, toolCallId: string) => {
      await p.request('tools/call', { name: 'create_order', arguments: ORDER });
      await waitFor(settled(n), 10_000, `attempt ${n}`);
      messages.push({ role: 'tool', tool_call_id: toolCallId, content: 'ok' });
    };

    const first = await ask();
    await carryOut(1, first.id);
    // The agent's runtime sends the same call again: no model answer asked for it.
    await carryOut(2, first.id);
    // The model asks again by itself.
    await carryOut(3, (await ask()).id);
    // The user says "try again", and the model asks again.
    messages.push({ role: 'user', content: 'Please try again.' });
    await carryOut(4, (await ask()).id);

    expect(executions(p.ledger(), 'create_order')).toHaveLength(4);
    const file = p.report() as unknown as ReportWithFindings;
    expect(
      file.report.attribution!.map((a) => [a.attempt, a.source, a.evidence.signal ?? null, a.evidence.toolCallId ?? null]),
    ).toEqual([
      [2, 'runtime', 'same-tool-call-twice', null],
      [3, 'model', null, 'call_2'],
      [4, 'user', null, 'call_3'],
    ]);
    expect(file.findings!.map((f) => [f.id, f.behaviour, f.count])).toEqual([['RUNTIME_RESEND', 'same-tool-call-twice', 1]]);
    expect(file.patches.map((patch) => patch.id)).toEqual(['IDEMPOTENCY']);
    // The gateway lends no key: the endpoint got the agent's own, three times.
    expect(model.authorizations.filter((a) => a === 'Bearer sk-the-agents-own')).toHaveLength(3);
  });

  it('R-14.2 an agent that never sends its model requests through the gateway: a re-call stays unknown, as without one', async () => {
    const { p } = await gatewayProxy();
    await p.request('tools/call', { name: 'create_order', arguments: ORDER });
    await p.request('tools/call', { name: 'create_order', arguments: ORDER });
    await waitFor(
      async () => p.report().report.operations[0]?.attempts === 2 && p.report().report.coverage.inFlight === 0,
      10_000,
      'two attempts',
    );
    expect(executions(p.ledger(), 'create_order')).toHaveLength(2);
    expect((p.report() as unknown as ReportWithFindings).report.attribution!.map((a) => a.source)).toEqual(['unknown']);
  });

  it('an unreachable --base-url is one line and exit 1, before the upstream starts', async () => {
    const gone = await scriptedModel();
    await gone.close();
    const p = (proxy = startLinesProxy([...COUNTING, '--model-gateway', '127.0.0.1:0', '--base-url', gone.url]));
    expect(await p.exit).toBe(1);
    expect(p.stderr().trim().split('\n')).toHaveLength(1);
    expect(p.stderr()).toMatch(/error: .*127\.0\.0\.1/);
    expect(p.ledger()).toEqual([]);
  });

  it.each([
    [['--model-gateway', '127.0.0.1:0'], /--model-gateway needs --base-url/],
    [['--base-url', 'http://127.0.0.1:9/v1'], /--base-url is for --model-gateway/],
    [['--model-gateway', '0.0.0.0:0', '--base-url', 'http://127.0.0.1:9/v1'], /listens on this machine only/],
    [['--model-gateway', '127.0.0.1:0', '--base-url', 'http://u:secret@127.0.0.1:9/v1'], /must not contain credentials/],
    [
      ['--model-gateway', '127.0.0.1:0', '--base-url', 'http://127.0.0.1:9/v1', '--listen', '127.0.0.1:0', '--report-dir', 'r'],
      /over stdio/,
    ],
  ])('bad gateway flags %j → one line, exit 1', async (flags, message) => {
    const p = (proxy = startLinesProxy([...COUNTING, ...flags], { reportFile: !flags.includes('--listen') }));
    expect(await p.exit).toBe(1);
    expect(p.stderr()).toMatch(message);
    expect(p.stderr()).not.toContain('secret');
    expect(p.stderr().trim().split('\n')).toHaveLength(1);
  });
});
