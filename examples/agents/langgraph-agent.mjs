#!/usr/bin/env node
// An agent on LangChain.js with LangGraph (the prebuilt ReAct agent of `@langchain/langgraph`, `ChatOpenAI`
// of `@langchain/openai` over Chat Completions, the MCP tools of `@langchain/mcp-adapters`) for
// `trial --agent-command`. It reads only the harness's variables: the MCP server (CUONZTECH_MCP_*), the task and
// the follow-ups (CUONZTECH_TASK, CUONZTECH_FOLLOW_UPS, CUONZTECH_SYSTEM_PROMPT) and the model
// (OPENAI_BASE_URL, OPENAI_API_KEY, CUONZTECH_MODEL). The conversation is one LangGraph thread (a checkpointer
// keeps it); each follow-up is a further user turn of it.
//
// AGENT_TOOL_TIMEOUT_MS=N: the MCP adapter's own time-out for tool calls (`defaultToolTimeout`, none by default):
// after N ms the call fails and the MCP client sends `notifications/cancelled`.
//
// AGENT_TOOL_RETRY=1: LangGraph's own retry setting, a `retryPolicy` on the tool node (the prebuilt agent does
// not take one, so this variant is the same ReAct graph written out, as LangGraph's docs do). A failed tool
// call (the MCP adapter throws a ToolException for an `isError` answer) then re-runs the whole tool node, and
// with it every tool call of that step: a re-send by the runtime, not by the model.
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { createReactAgent, ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';

const env = process.env;
const mcp = new MultiServerMCPClient({
  ...(env.AGENT_TOOL_TIMEOUT_MS !== undefined ? { defaultToolTimeout: Number(env.AGENT_TOOL_TIMEOUT_MS) } : {}),
  mcpServers: {
    harness:
      env.CUONZTECH_MCP_TRANSPORT === 'http'
        ? { transport: 'http', url: env.CUONZTECH_MCP_URL }
        : { transport: 'stdio', command: env.CUONZTECH_MCP_COMMAND, args: JSON.parse(env.CUONZTECH_MCP_ARGS) },
  },
});
try {
  const tools = await mcp.getTools();
  const llm = new ChatOpenAI({
    model: env.CUONZTECH_MODEL,
    apiKey: env.OPENAI_API_KEY,
    configuration: { baseURL: env.OPENAI_BASE_URL },
  });
  const checkpointer = new MemorySaver();
  const agent =
    env.AGENT_TOOL_RETRY === '1'
      ? reactGraphWithToolRetry(llm, tools, checkpointer)
      : createReactAgent({ llm, tools, checkpointer, prompt: env.CUONZTECH_SYSTEM_PROMPT });

  const thread = { configurable: { thread_id: env.CUONZTECH_RUN_ID ?? 'run' }, recursionLimit: 25 };
  for (const turn of [env.CUONZTECH_TASK ?? '', ...JSON.parse(env.CUONZTECH_FOLLOW_UPS ?? '[]')]) {
    const state = await agent.invoke({ messages: [{ role: 'user', content: turn }] }, thread);
    console.log(state.messages.at(-1)?.content);
  }
} finally {
  await mcp.close();
}

/** The prebuilt agent's graph (model node, tool node, the edge between them), with a retry policy on the tools. */
function reactGraphWithToolRetry(llm, tools, checkpointer) {
  const model = llm.bindTools(tools);
  const system = env.CUONZTECH_SYSTEM_PROMPT === undefined ? [] : [{ role: 'system', content: env.CUONZTECH_SYSTEM_PROMPT }];
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state) => ({ messages: [await model.invoke([...system, ...state.messages])] }))
    .addNode('tools', new ToolNode(tools, { handleToolErrors: false }), {
      retryPolicy: { maxAttempts: 2, initialInterval: 100 },
    })
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition, ['tools', END])
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
}
