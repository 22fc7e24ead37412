#!/usr/bin/env node
// An agent on the Anthropic SDK's tool loop (`@anthropic-ai/sdk`: `messages.create` until the model stops asking
// for tools, each `tool_use` answered with a `tool_result`) and the MCP SDK client, for `trial --agent-command`.
// It reads only the harness's variables: the MCP server (CUONZTECH_MCP_*), the task and the follow-ups
// (CUONZTECH_TASK, CUONZTECH_FOLLOW_UPS, CUONZTECH_SYSTEM_PROMPT) and the model (ANTHROPIC_BASE_URL and
// ANTHROPIC_API_KEY, which the SDK's client reads itself, and CUONZTECH_MODEL). Each follow-up is a further user
// turn of the same conversation. A tool's failure goes to the model as the Messages API says: a `tool_result`
// with `is_error: true` and the server's text.
//
// AGENT_MODEL_RETRIES=N: the client's own retry of a failed model request (`maxRetries`; the SDK's default is 2,
// so the default program already re-sends a request answered 429, 5xx or not at all; 0 turns it off). The
// client re-sends the same request, never a tool call.
//
// AGENT_STREAM=1: the model's answers are streamed (`messages.stream`, then `finalMessage()`).
//
// AGENT_TOOL_RETRY=1: the tool loop is the program's own, so is its retry: when a call failed (it threw, or the
// server answered `isError`), send it once more, as people write it by hand. The second send is the runtime's,
// not the model's.
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const env = process.env;
const anthropic = new Anthropic(env.AGENT_MODEL_RETRIES !== undefined ? { maxRetries: Number(env.AGENT_MODEL_RETRIES) } : {});
const mcp = new Client({ name: 'anthropic-agent', version: '1.0.0' });
await mcp.connect(
  env.CUONZTECH_MCP_TRANSPORT === 'http'
    ? new StreamableHTTPClientTransport(new URL(env.CUONZTECH_MCP_URL))
    : new StdioClientTransport({ command: env.CUONZTECH_MCP_COMMAND, args: JSON.parse(env.CUONZTECH_MCP_ARGS) }),
);
try {
  const tools = (await mcp.listTools()).tools.map((tool) => ({
    name: tool.name,
    description: tool.description ?? '',
    input_schema: tool.inputSchema,
  }));
  const messages = [];
  for (const turn of [env.CUONZTECH_TASK ?? '', ...JSON.parse(env.CUONZTECH_FOLLOW_UPS ?? '[]')]) {
    messages.push({ role: 'user', content: turn });
    for (let step = 0; step < 10; step++) {
      const request = {
        model: env.CUONZTECH_MODEL,
        max_tokens: 1024,
        ...(env.CUONZTECH_SYSTEM_PROMPT !== undefined ? { system: env.CUONZTECH_SYSTEM_PROMPT } : {}),
        messages,
        tools,
      };
      const message =
        env.AGENT_STREAM === '1'
          ? await anthropic.messages.stream(request).finalMessage()
          : await anthropic.messages.create(request);
      messages.push({ role: 'assistant', content: message.content });
      const calls = message.content.filter((block) => block.type === 'tool_use');
      if (message.stop_reason !== 'tool_use' || calls.length === 0) {
        console.log(
          message.content
            .filter((block) => block.type === 'text')
            .map((block) => block.text)
            .join(''),
        );
        break;
      }
      const results = [];
      for (const call of calls) {
        let { content, isError } = await callTool(call);
        if (isError && env.AGENT_TOOL_RETRY === '1') ({ content, isError } = await callTool(call));
        results.push({ type: 'tool_result', tool_use_id: call.id, content, ...(isError ? { is_error: true } : {}) });
      }
      messages.push({ role: 'user', content: results });
    }
  }
} finally {
  await mcp.close();
}

/** One MCP call: its text and whether it failed. */
async function callTool(call) {
  try {
    const result = await mcp.callTool({ name: call.name, arguments: call.input });
    const text = result.content.filter((part) => part.type === 'text').map((part) => part.text);
    return { content: text.join('\n'), isError: result.isError === true };
  } catch (error) {
    // A JSON-RPC error (e.g. the MCP client's time-out) is the tool's failure, told to the model as such.
    return { content: error instanceof Error ? error.message : String(error), isError: true };
  }
}
