/**
 * The benchmark's floor: the plainest MCP stdio forwarder the SDK allows — an SDK `Server` on stdin/stdout
 * that forwards `tools/list` and `tools/call` through an SDK `Client` to the upstream, with no judging and
 * no report. Whatever the proxy costs beyond this is the harness's own cost.
 *
 * Usage: `node dist/bench/naive-forwarder.js <upstream command> [args…]`. Exits at stdin EOF (the agent disconnected).
 *
 * With `NAIVE_REPORT_FILE` set (the `floorWrites` path) it also writes a file the size the proxy's report
 * would have (`NAIVE_REPORT_BYTES_PER_CALL` per call so far, plus `NAIVE_REPORT_BASE_BYTES`) atomically, with the proxy's own
 * file sink, before forwarding each call and before answering it — the report writes
 * require, done by the plainest forwarder, in the same setting as the proxy (same processes, same cores).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, CallToolResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { FileReportSink } from '../src/adapters/files/file-report-sink.js';

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write('usage: naive-forwarder <upstream command> [args…]\n');
  process.exit(2);
}

const upstream = new Client({ name: 'naive-forwarder', version: '1.0.0' });
await upstream.connect(new StdioClientTransport({ command, args, env: { ...process.env } as Record<string, string> }));
const server = new Server({ name: 'naive-forwarder', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, (request) => upstream.listTools(request.params));
const reportFile = process.env['NAIVE_REPORT_FILE'];
const sink = reportFile === undefined ? null : await FileReportSink.open(reportFile);
const baseBytes = Number(process.env['NAIVE_REPORT_BASE_BYTES'] ?? '1500');
const bytesPerCall = Number(process.env['NAIVE_REPORT_BYTES_PER_CALL'] ?? '180');
let calls = 0;
let spaces = new Uint8Array(0);
/** A document of the size the report has after `calls` calls (its content does not matter for the cost). */
function write(): void {
  const bytes = baseBytes + bytesPerCall * calls;
  // Grown by doubling, so the buffer is not allocated and filled again for every call.
  if (spaces.length < bytes) spaces = new Uint8Array(bytes * 2).fill(0x20);
  sink!.publishSync(['{', spaces.subarray(0, bytes), '}']);
}
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (sink === null) return upstream.request({ method: 'tools/call', params: request.params }, CallToolResultSchema);
  calls++;
  write();
  const result = await upstream.request({ method: 'tools/call', params: request.params }, CallToolResultSchema);
  write();
  return result;
});
await server.connect(new StdioServerTransport());
process.stdin.once('end', () => void upstream.close().finally(() => process.exit(0)));
