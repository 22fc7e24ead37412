#!/usr/bin/env node
// An agent on the Vercel AI SDK (`ai` with `@ai-sdk/openai`, the MCP client of `@ai-sdk/mcp`) for
// `trial --agent-command`. It reads only the harness's variables: the MCP server (CUONZTECH_MCP_*), the task and
// the follow-ups (CUONZTECH_TASK, CUONZTECH_FOLLOW_UPS, CUONZTECH_SYSTEM_PROMPT) and the model
// (OPENAI_BASE_URL, OPENAI_API_KEY, CUONZTECH_MODEL; the provider reads the first two itself). The model is
// called through the OpenAI Responses API, the provider's default. Each follow-up is a further user turn of the
// same conversation.
//
// AGENT_STREAM=1: the model's answers are streamed (`streamText` instead of `generateText`).
//
// AGENT_TOOL_RETRY=1: the AI SDK has no retry for tool calls (its `maxRetries` re-sends model requests only),
// so this variant wraps each MCP tool's `execute` in the retry people write by hand: when the call failed (it
// threw, or the server answered `isError`), send it once more. The second send is the runtime's, not the model's.
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { openai } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText } from 'ai';

const env = process.env;
const mcp = await createMCPClient({
  transport:
    env.CUONZTECH_MCP_TRANSPORT === 'http'
      ? { type: 'http', url: env.CUONZTECH_MCP_URL }
      : new Experimental_StdioMCPTransport({ command: env.CUONZTECH_MCP_COMMAND, args: JSON.parse(env.CUONZTECH_MCP_ARGS) }),
});
try {
  const tools = await mcp.tools();
  if (env.AGENT_TOOL_RETRY === '1') for (const tool of Object.values(tools)) tool.execute = retryOnce(tool.execute);

  const messages = [];
  for (const turn of [env.CUONZTECH_TASK ?? '', ...JSON.parse(env.CUONZTECH_FOLLOW_UPS ?? '[]')]) {
    messages.push({ role: 'user', content: turn });
    const request = {
      model: openai(env.CUONZTECH_MODEL),
      system: env.CUONZTECH_SYSTEM_PROMPT,
      messages,
      tools,
      stopWhen: stepCountIs(10),
    };
    const result = env.AGENT_STREAM === '1' ? streamText(request) : await generateText(request);
    messages.push(...(await result.response).messages);
    console.log(await result.text);
  }
} finally {
  await mcp.close();
}

/** The hand-written tool retry: one more send of the same call when the first failed. */
function retryOnce(execute) {
  return async (input, options) => {
    try {
      const result = await execute(input, options);
      if (result?.isError !== true) return result;
    } catch {
      // a thrown failure is retried as well
    }
    return execute(input, options);
  };
}
