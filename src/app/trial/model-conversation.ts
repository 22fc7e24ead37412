/**
 * The built-in agent loop: the task as the user's first message, the upstream's tools as the model's
 * tools, every tool call through the harness (the same judging pipeline as `proxy`), each result back as
 * a tool message, up to `maxSteps` model calls per user turn; then each follow-up turn after the final
 * answer. Tool calls of one reply are made one after the other, in the order the model wrote them.
 */
import type { ChatMessage, ChatModel, ChatTool } from '../../ports/chat-model.port.js';
import type { ToolCallRequest, ToolCallResult, ToolDescriptor } from '../../ports/mcp-shapes.js';
import { requestWithRetries } from './model-request.js';
import { toolMessageText } from './tool-message.js';
import type { ModelAgent, TrialTask } from './trial-plan.js';
import type { Transcript } from './transcript.js';

/** The agent's MCP client: what an agent can do with the harness's endpoint. */
export interface ToolClient {
  listTools(): Promise<ToolDescriptor[]>;
  callTool(request: ToolCallRequest): Promise<ToolCallResult>;
}

/** How the conversation ended. `endpointFailure` makes the run NOT_TESTED whatever the report says. */
export interface ConversationEnd {
  stoppedBy: 'final-answer' | 'max-steps' | 'endpoint-failure';
  endpointFailure?: string;
  /** The agent's last text to the user, if any. */
  finalAnswer: string | null;
}

export interface ConversationContext {
  client: ToolClient;
  model: ChatModel;
  agent: ModelAgent;
  task: TrialTask;
  seed: number | undefined;
  transcript: Transcript;
  sleep: (ms: number) => Promise<void>;
}

export function chatToolsOf(tools: readonly ToolDescriptor[]): ChatTool[] {
  return tools.map((t) => ({
    name: t.name,
    description: typeof t.description === 'string' ? t.description : '',
    parameters: t.inputSchema ?? { type: 'object', properties: {} },
  }));
}

export async function runConversation(ctx: ConversationContext): Promise<ConversationEnd> {
  const { transcript, task } = ctx;
  const tools = chatToolsOf(await ctx.client.listTools());
  const known = new Set(tools.map((t) => t.name));
  const messages: ChatMessage[] = [];
  if (task.systemPrompt !== undefined) {
    messages.push({ role: 'system', content: task.systemPrompt });
    transcript.add({ kind: 'system', content: task.systemPrompt });
  }
  let finalAnswer: string | null = null;
  const turns = [task.task, ...task.followUps];
  for (const [turn, text] of turns.entries()) {
    messages.push({ role: 'user', content: text });
    transcript.add({ kind: 'user', turn: turn + 1, content: text });
    let answered = false;
    for (let step = 1; step <= task.maxSteps && !answered; step++) {
      const answer = await requestWithRetries(
        { messages, tools, ...(ctx.agent.temperature !== undefined ? { temperature: ctx.agent.temperature } : {}), ...(ctx.seed !== undefined ? { seed: ctx.seed } : {}) },
        { model: ctx.model, agent: ctx.agent, transcript, sleep: ctx.sleep, turn: turn + 1, step },
      );
      if (!answer.ok) return { stoppedBy: 'endpoint-failure', endpointFailure: answer.reason, finalAnswer };
      const { content, toolCalls } = answer.reply;
      messages.push({ role: 'assistant', content, ...(toolCalls.length > 0 ? { toolCalls } : {}) });
      transcript.add({ kind: 'assistant', turn: turn + 1, step, content, toolCalls: toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.argumentsText })) });
      if (toolCalls.length === 0) {
        finalAnswer = content;
        answered = true;
        break;
      }
      for (const call of toolCalls) {
        transcript.toolCalls++;
        const { text: resultContent, isError, forwarded } = await makeCall(ctx, known, call.name, call.argumentsText);
        messages.push({ role: 'tool', toolCallId: call.id, content: resultContent });
        transcript.add({ kind: 'tool-result', callId: call.id, tool: call.name, isError, forwarded, content: resultContent });
      }
    }
    if (!answered) {
      transcript.add({ kind: 'note', text: `max steps (${task.maxSteps}) reached in turn ${turn + 1} without a final answer; the conversation ends` });
      return { stoppedBy: 'max-steps', finalAnswer };
    }
  }
  return { stoppedBy: 'final-answer', finalAnswer };
}

/**
 * One tool call of the model. A call the harness cannot even read (arguments that are not a JSON object,
 * a tool that was not offered) is answered with an error for the model and never forwarded, as agent
 * frameworks do: nothing reaches the upstream, so nothing can execute.
 */
async function makeCall(ctx: ConversationContext, known: ReadonlySet<string>, name: string, argumentsText: string): Promise<{ text: string; isError: boolean; forwarded: boolean }> {
  if (!known.has(name)) {
    ctx.transcript.add({ kind: 'note', text: `malformed tool call: unknown tool ${JSON.stringify(name)}; not forwarded` });
    return { text: `Error: there is no tool named ${JSON.stringify(name)}. Available tools: ${[...known].join(', ')}.`, isError: true, forwarded: false };
  }
  let args: unknown;
  try {
    args = argumentsText.trim() === '' ? {} : JSON.parse(argumentsText);
  } catch {
    args = undefined;
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    ctx.transcript.add({ kind: 'note', text: `malformed tool call: the arguments of ${name} are not a JSON object; not forwarded` });
    return { text: `Error: the arguments of ${name} are not a valid JSON object: ${argumentsText.slice(0, 200)}`, isError: true, forwarded: false };
  }
  const result = await ctx.client.callTool({ name, arguments: args });
  return { text: toolMessageText(result, ctx.agent.isError), isError: result.isError === true, forwarded: true };
}
