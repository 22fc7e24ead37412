/**
 * The benchmark's floor: the plainest MCP stdio forwarder the SDK allows — an SDK `Server` on stdin/stdout
 * that forwards `tools/list` and `tools/call` through an SDK `Client` to the upstream, with no judging and
 * no report. Whatever the proxy costs beyond this is the harness's own cost.
 *
 * Usage: `node dist/bench/naive-forwarder.js <upstream command> [args…]`. Exits at stdin EOF (the agent disconnected).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, CallToolResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write('usage: naive-forwarder <upstream command> [args…]\n');
  process.exit(2);
}

const upstream = new Client({ name: 'naive-forwarder', version: '1.0.0' });
await upstream.connect(new StdioClientTransport({ command, args, env: { ...process.env } as Record<string, string> }));
const server = new Server({ name: 'naive-forwarder', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, (request) => upstream.listTools(request.params));
server.setRequestHandler(CallToolRequestSchema, (request) =>
  upstream.request({ method: 'tools/call', params: request.params }, CallToolResultSchema),
);
await server.connect(new StdioServerTransport());
process.stdin.once('end', () => void upstream.close().finally(() => process.exit(0)));
