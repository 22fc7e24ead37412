#!/usr/bin/env node
// A minimal agent for `trial --agent-command`: the MCP SDK client plus any OpenAI-compatible model (env CUONZTECH_MODEL
// or MODEL, OPENAI_BASE_URL, OPENAI_API_KEY: the harness's model gateway sets them with --stub-model). It plays the
// task, then each user turn of CUONZTECH_FOLLOW_UPS after its final answer. A plain module like the other programs
// here, run as it is (`node examples/agents/sdk-agent.mjs`): its one package, the MCP SDK, is the harness's own
// dependency, so it runs from a clone after the root's `npm ci`, with or without this folder's install.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const env = process.env;
const mcp = new Client({ name: 'example-agent', version: '1.0.0' });
await mcp.connect(
  env.CUONZTECH_MCP_TRANSPORT === 'http'
    ? new StreamableHTTPClientTransport(new URL(env.CUONZTECH_MCP_URL))
    : new StdioClientTransport({ command: env.CUONZTECH_MCP_COMMAND, args: JSON.parse(env.CUONZTECH_MCP_ARGS) }),
);
const tools = (await mcp.listTools()).tools.map((t) => ({
  type: 'function',
  function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema },
}));
const messages = [];
if (env.CUONZTECH_SYSTEM_PROMPT !== undefined) messages.push({ role: 'system', content: env.CUONZTECH_SYSTEM_PROMPT });
const turns = [env.CUONZTECH_TASK ?? '', ...JSON.parse(env.CUONZTECH_FOLLOW_UPS ?? '[]')];
for (const turn of turns) {
  messages.push({ role: 'user', content: turn });
  for (let step = 0; step < 10; step++) {
    const response = await fetch(`${env.OPENAI_BASE_URL ?? 'http://127.0.0.1:11434/v1'}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${env.OPENAI_API_KEY ?? ''}` },
      body: JSON.stringify({ model: env.CUONZTECH_MODEL ?? env.MODEL, messages, tools }),
    });
    if (!response.ok) throw new Error(`the model endpoint answered ${response.status}: ${await response.text()}`);
    // { choices: [{ message: { content, tool_calls?: [{ id, function: { name, arguments } }] } }] }
    const message = (await response.json()).choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) break;
    for (const call of message.tool_calls) {
      const result = await mcp.callTool({ name: call.function.name, arguments: JSON.parse(call.function.arguments) });
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
    }
  }
}
await mcp.close();
