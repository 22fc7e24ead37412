#!/usr/bin/env node
// An agent on the official `openai` client's Chat Completions tool loop (`chat.completions.create` until the model
// asks for no tool, each `tool_calls` entry answered with a `tool` message) and the MCP SDK client, for
// `trial --agent-command`. It reads only the harness's variables: the MCP server (CUONZTECH_MCP_*), the task and
// the follow-ups (CUONZTECH_TASK, CUONZTECH_FOLLOW_UPS, CUONZTECH_SYSTEM_PROMPT) and the model (OPENAI_BASE_URL
// and OPENAI_API_KEY, which the client reads itself, and CUONZTECH_MODEL). Each follow-up is a further user turn
// of the same conversation. Chat Completions has no error flag on a tool message: a tool's failure goes to the
// model as the server's text (or the MCP client's error message) in the `tool` message.
//
// AGENT_MODEL_RETRIES=N: the client's own retry of a failed model request (`maxRetries`; the client's default is
// 2, so the default program already re-sends a request answered 429, 5xx or not at all; 0 turns it off). The
// client re-sends the same request, never a tool call.
//
// AGENT_STREAM=1: the model's answers are streamed (`chat.completions.stream`, then `finalChatCompletion()`).
//
// AGENT_TOOL_RETRY=1: the tool loop is the program's own, so is its retry: when a call failed (it threw, or the
// server answered `isError`), send it once more, as people write it by hand. The second send is the runtime's,
// not the model's.
import OpenAI from 'openai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const env = process.env;
const openai = new OpenAI(env.AGENT_MODEL_RETRIES !== undefined ? { maxRetries: Number(env.AGENT_MODEL_RETRIES) } : {});
const mcp = new Client({ name: 'openai-agent', version: '1.0.0' });
await mcp.connect(
  env.CUONZTECH_MCP_TRANSPORT === 'http'
    ? new StreamableHTTPClientTransport(new URL(env.CUONZTECH_MCP_URL))
    : new StdioClientTransport({ command: env.CUONZTECH_MCP_COMMAND, args: JSON.parse(env.CUONZTECH_MCP_ARGS) }),
);
try {
  const tools = (await mcp.listTools()).tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description ?? '', parameters: tool.inputSchema },
  }));
  const messages = env.CUONZTECH_SYSTEM_PROMPT !== undefined ? [{ role: 'system', content: env.CUONZTECH_SYSTEM_PROMPT }] : [];
  for (const turn of [env.CUONZTECH_TASK ?? '', ...JSON.parse(env.CUONZTECH_FOLLOW_UPS ?? '[]')]) {
    messages.push({ role: 'user', content: turn });
    for (let step = 0; step < 10; step++) {
      const request = { model: env.CUONZTECH_MODEL, messages, tools };
      const completion =
        env.AGENT_STREAM === '1'
          ? await openai.chat.completions.stream(request).finalChatCompletion()
          : await openai.chat.completions.create(request);
      const message = completion.choices[0].message;
      messages.push(message);
      if (!message.tool_calls?.length) {
        console.log(message.content ?? '');
        break;
      }
      for (const call of message.tool_calls) {
        let { content, isError } = await callTool(call);
        if (isError && env.AGENT_TOOL_RETRY === '1') ({ content } = await callTool(call));
        messages.push({ role: 'tool', tool_call_id: call.id, content });
      }
    }
  }
} finally {
  await mcp.close();
}

/** One MCP call: its text and whether it failed. */
async function callTool(call) {
  try {
    const result = await mcp.callTool({ name: call.function.name, arguments: JSON.parse(call.function.arguments || '{}') });
    const text = result.content.filter((part) => part.type === 'text').map((part) => part.text);
    return { content: text.join('\n'), isError: result.isError === true };
  } catch (error) {
    // A JSON-RPC error (e.g. the MCP client's time-out) is the tool's failure, told to the model as such.
    return { content: error instanceof Error ? error.message : String(error), isError: true };
  }
}
