#!/usr/bin/env node
// An agent on the OpenAI Agents SDK for JavaScript (`@openai/agents`: an `Agent` with the SDK's own MCP server
// support, run by `run`, its model over the Responses API, the SDK's default) for `trial --agent-command`. It
// reads only the harness's variables: the MCP server (CUONZTECH_MCP_*), the task and the follow-ups
// (CUONZTECH_TASK, CUONZTECH_FOLLOW_UPS, CUONZTECH_SYSTEM_PROMPT) and the model (OPENAI_BASE_URL and
// OPENAI_API_KEY, which the SDK's OpenAI client reads itself, and CUONZTECH_MODEL). Tracing is turned off: its
// exporter would send every run to the OpenAI platform. Each follow-up is a further user turn of the same
// conversation (the run's history, given back to the next `run`).
//
// AGENT_STREAM=1: the model's answers are streamed (`run` with `stream: true`).
//
// AGENT_TOOL_TIMEOUT_MS=N: the SDK's own MCP request time-out (`timeout`, default 5 s): after N ms the call
// fails and the MCP client sends `notifications/cancelled`.
//
// AGENT_TOOL_RETRY=1: the Agents SDK has no retry for tool calls (its retry settings re-send model requests),
// so this variant gives its MCP server the retry people write by hand: when a call failed (it threw, or the
// server answered `isError`), send it once more. The second send is the runtime's, not the model's.
import { Agent, MCPServerStdio, MCPServerStreamableHttp, run, setTracingDisabled, user } from '@openai/agents';

const env = process.env;
setTracingDisabled(true);

/** The SDK's MCP server class, or with AGENT_TOOL_RETRY=1 the same class with one more send after a failure. */
const withRetry = (Server) =>
  env.AGENT_TOOL_RETRY === '1'
    ? class extends Server {
        async callToolResult(...call) {
          try {
            const result = await super.callToolResult(...call);
            if (result.isError !== true) return result;
          } catch {
            // a thrown failure is retried as well
          }
          return super.callToolResult(...call);
        }
      }
    : Server;

const options = {
  name: 'harness',
  cacheToolsList: true,
  ...(env.AGENT_TOOL_TIMEOUT_MS !== undefined ? { timeout: Number(env.AGENT_TOOL_TIMEOUT_MS) } : {}),
};
const server =
  env.CUONZTECH_MCP_TRANSPORT === 'http'
    ? new (withRetry(MCPServerStreamableHttp))({ ...options, url: env.CUONZTECH_MCP_URL })
    : new (withRetry(MCPServerStdio))({
        ...options,
        command: env.CUONZTECH_MCP_COMMAND,
        args: JSON.parse(env.CUONZTECH_MCP_ARGS),
      });
await server.connect();
try {
  const agent = new Agent({
    name: 'Assistant',
    instructions: env.CUONZTECH_SYSTEM_PROMPT ?? 'You are a helpful assistant.',
    model: env.CUONZTECH_MODEL,
    mcpServers: [server],
  });
  let history = [];
  for (const turn of [env.CUONZTECH_TASK ?? '', ...JSON.parse(env.CUONZTECH_FOLLOW_UPS ?? '[]')]) {
    const stream = env.AGENT_STREAM === '1';
    const result = await run(agent, [...history, user(turn)], { maxTurns: 10, stream });
    if (stream) await result.completed; // the streamed run, to its end
    history = result.history;
    console.log(result.finalOutput);
  }
} finally {
  await server.close();
}
