#!/usr/bin/env node
// A minimal agent for `trial --agent-command`: the MCP SDK client plus any OpenAI-compatible model (env MODEL, OPENAI_BASE_URL, OPENAI_API_KEY).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const env = process.env;
const mcp = new Client({ name: 'example-agent', version: '1.0.0' });
await mcp.connect(
  env['CUONZTECH_MCP_TRANSPORT'] === 'http'
    ? new StreamableHTTPClientTransport(new URL(env['CUONZTECH_MCP_URL']!))
    : new StdioClientTransport({
        command: env['CUONZTECH_MCP_COMMAND']!,
        args: JSON.parse(env['CUONZTECH_MCP_ARGS']!) as string[],
      }),
);
const tools = (await mcp.listTools()).tools.map((t) => ({
  type: 'function',
  function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema },
}));
const messages: Array<Record<string, unknown>> = [{ role: 'user', content: env['CUONZTECH_TASK'] }];
for (let step = 0; step < 10; step++) {
  const response = await fetch(`${env['OPENAI_BASE_URL'] ?? 'http://127.0.0.1:11434/v1'}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${env['OPENAI_API_KEY'] ?? ''}` },
    body: JSON.stringify({ model: env['MODEL'], messages, tools }),
  });
  const message = (
    (await response.json()) as {
      choices: Array<{
        message: { content: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> };
      }>;
    }
  ).choices[0]!.message;
  messages.push(message);
  if (!message.tool_calls?.length) break;
  for (const call of message.tool_calls) {
    const result = await mcp.callTool({
      name: call.function.name,
      arguments: JSON.parse(call.function.arguments) as Record<string, unknown>,
    });
    messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result.content) });
  }
}
await mcp.close();
