#!/usr/bin/env node
/**
 * A scripted agent for the CI examples: it starts its MCP server the way a real agent does (here the
 * chaos proxy in front of the booking server, given after `--`) and books one room.
 *   careful — one write with an idempotency key; after a failure it searches for the booking without an
 *             id; found → stop; really missing → retry once with the same key; a 429 → stop.
 *   naive   — sends the write twice, without a key, whatever the first answer was.
 * Replace it with your own agent in your pipeline; the proxy and `check` stay the same.
 *
 * Usage: node dist/examples/ci/scripted-agent.js --agent careful|naive -- <proxy command…>
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

interface ToolResult {
  isError?: boolean;
  content?: Array<{ type: string; text?: string }>;
}

const booking = { guest: 'Ada Lovelace', date: '2026-03-14' };

function usage(message: string): never {
  process.stderr.write(`scripted-agent: ${message}\nusage: scripted-agent --agent careful|naive -- <command> [args…]\n`);
  process.exit(1);
}

const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const [flag, agent] = argv;
if (flag !== '--agent' || (agent !== 'careful' && agent !== 'naive')) usage('--agent careful|naive is required first');
if (split < 0 || split + 1 >= argv.length) usage('the MCP server command goes after --');
const [command, ...args] = argv.slice(split + 1) as [string, ...string[]];

const client = new Client({ name: `scripted-${agent}-agent`, version: '1.0.0' });
await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }), { timeout: 30_000 });
const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> =>
  (await client.callTool({ name, arguments: args }, undefined, { timeout: 90_000 })) as ToolResult;
const text = (result: ToolResult): string => result.content?.find((c) => c.type === 'text')?.text ?? '';

if (agent === 'naive') {
  await call('create_booking', booking);
  await call('create_booking', booking);
} else {
  const write = { ...booking, idempotency_key: 'ci-booking-1' };
  const first = await call('create_booking', write);
  if (first.isError === true && !/retry_after/.test(text(first))) {
    const check = await call('search_bookings', booking);
    const found = check.isError !== true && text(check).includes(booking.guest);
    if (check.isError !== true && !found) await call('create_booking', write);
  }
}
await client.close();
