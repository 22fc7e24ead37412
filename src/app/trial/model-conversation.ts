/**
 * The built-in agent loop: the task as the user's first message, the upstream's tools as the model's
 * tools, every tool call through the harness (the same judging pipeline as `proxy`), each result back as
 * a tool message, up to `maxSteps` model calls per user turn; then each follow-up turn after the final
 * answer, and last the honesty question when it is on. Tool calls of one reply are made one after the other, in the order the model wrote them.
 * The conversation is bounded (`conversation-size.ts`): a run whose messages would outgrow 32 MB ends
 * there, NOT_TESTED (`stoppedBy: "conversation-limit"`), and the tool calls of the reply not made yet are
 * never made.
 */
import { canonicalArguments } from '../../domain/json.js';
import type { ModelSide } from '../../domain/judging/attribution.js';
import type { ChatMessage, ChatModel, ChatTool } from '../../ports/chat-model.port.js';
import type { ToolCallRequest, ToolCallResult, ToolDescriptor } from '../../ports/shapes/mcp-shapes.js';
import { ConversationSize, MAX_CONVERSATION_BYTES, megabytes, preview } from './conversation-size.js';
import { requestWithRetries } from './model-request.js';
import { toolMessageText } from './tool-message.js';
import type { ModelAgent, TrialTask } from './trial-plan.js';
import type { Transcript } from './transcript.js';

/** The agent's MCP client: what an agent can do with the harness's endpoint. */
export interface ToolClient {
  listTools(): Promise<ToolDescriptor[]>;
  callTool(request: ToolCallRequest): Promise<ToolCallResult>;
}

/**
 * How the conversation ended. `endpointFailure` (the endpoint failed, or the conversation outgrew its
 * limit) makes the run NOT_TESTED whatever the report says.
 */
export interface ConversationEnd {
  stoppedBy: 'final-answer' | 'max-steps' | 'endpoint-failure' | 'conversation-limit';
  endpointFailure?: string;
  /** The agent's last text to the user before the honesty question, if any. */
  finalAnswer: string | null;
  /** The agent's answer to the honesty question; null when it was not asked or not answered. */
  honestyAnswer: string | null;
}

export interface ConversationContext {
  client: ToolClient;
  model: ChatModel;
  agent: ModelAgent;
  task: TrialTask;
  seed: number | undefined;
  transcript: Transcript;
  sleep: (ms: number) => Promise<void>;
  /** Asked as one more user turn after the task and follow-ups; undefined with `--honesty off`. */
  honestyQuestion?: string | undefined;
  /** Aborted when the trial is stopped at once: the model request in flight is dropped. */
  signal?: AbortSignal | undefined;
  /** The conversation's limit in bytes (default {@link MAX_CONVERSATION_BYTES}); a test seam. */
  maxConversationBytes?: number | undefined;
  /**
   * R-14: the model's side for the session's attribution — each user turn, and each model answer with the
   * tool calls it asks for, told before any of them is made.
   */
  modelSide?: Pick<ModelSide, 'feed'> | undefined;
}

function chatToolsOf(tools: readonly ToolDescriptor[]): ChatTool[] {
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
  const size = new ConversationSize(ctx.maxConversationBytes ?? MAX_CONVERSATION_BYTES);
  const toolsSize = size.add(JSON.stringify(tools));
  if (toolsSize !== null) return tooLarge(ctx, toolsSize, 'with the tools the upstream offers', null);
  if (task.systemPrompt !== undefined) {
    const over = size.add(task.systemPrompt);
    if (over !== null) return tooLarge(ctx, over, 'with the system prompt', null);
    messages.push({ role: 'system', content: task.systemPrompt });
    transcript.add({ kind: 'system', content: task.systemPrompt });
  }
  let finalAnswer: string | null = null;
  const turns = [task.task, ...task.followUps];
  const question = ctx.honestyQuestion;
  // Last, the one question about the task's write; the agent may use tools before it answers.
  const all = question === undefined ? turns : [...turns, question];
  for (const [index, text] of all.entries()) {
    const played = await playTurn(ctx, tools, known, messages, size, index + 1, text);
    if (played.kind === 'endpoint-failure')
      return { stoppedBy: 'endpoint-failure', endpointFailure: played.reason, finalAnswer, honestyAnswer: null };
    if (played.kind === 'too-large') return tooLarge(ctx, played.size, played.where, finalAnswer);
    if (played.kind === 'max-steps') return { stoppedBy: 'max-steps', finalAnswer, honestyAnswer: null };
    if (index < turns.length) finalAnswer = played.answer;
    else return { stoppedBy: 'final-answer', finalAnswer, honestyAnswer: played.answer };
  }
  return { stoppedBy: 'final-answer', finalAnswer, honestyAnswer: null };
}

/** The run ends NOT_TESTED: the conversation would have outgrown its limit. */
function tooLarge(ctx: ConversationContext, size: number, where: string, finalAnswer: string | null): ConversationEnd {
  const limit = ctx.maxConversationBytes ?? MAX_CONVERSATION_BYTES;
  const reason = `the conversation outgrew its limit of ${megabytes(limit)} (${megabytes(size)} ${where}); the run ends here`;
  ctx.transcript.add({ kind: 'note', text: reason });
  return { stoppedBy: 'conversation-limit', endpointFailure: reason, finalAnswer, honestyAnswer: null };
}

type TurnEnd =
  | { kind: 'answered'; answer: string | null }
  | { kind: 'max-steps' }
  | { kind: 'endpoint-failure'; reason: string }
  | { kind: 'too-large'; size: number; where: string };

/** One user turn: up to `maxSteps` model calls, each reply's tool calls made in order, until a reply without tool calls. */
async function playTurn(
  ctx: ConversationContext,
  tools: ChatTool[],
  known: ReadonlySet<string>,
  messages: ChatMessage[],
  size: ConversationSize,
  turn: number,
  text: string,
): Promise<TurnEnd> {
  const { transcript, task } = ctx;
  const userSize = size.add(text);
  if (userSize !== null) return { kind: 'too-large', size: userSize, where: `with the user's message of turn ${turn}` };
  messages.push({ role: 'user', content: text });
  transcript.add({ kind: 'user', turn, content: text });
  ctx.modelSide?.feed({ kind: 'user-turn' });
  for (let step = 1; step <= task.maxSteps; step++) {
    const answer = await requestWithRetries(
      {
        messages,
        tools,
        ...(ctx.agent.temperature !== undefined ? { temperature: ctx.agent.temperature } : {}),
        ...(ctx.seed !== undefined ? { seed: ctx.seed } : {}),
      },
      { model: ctx.model, agent: ctx.agent, transcript, sleep: ctx.sleep, turn, step, signal: ctx.signal },
    );
    if (!answer.ok) return { kind: 'endpoint-failure', reason: answer.reason };
    const { content, toolCalls } = answer.reply;
    const replySize = size.add(content, ...toolCalls.flatMap((c) => [c.id, c.name, c.argumentsText]));
    if (replySize !== null) {
      // Kept cut in the transcript; none of its tool calls is made, so nothing of it executes.
      transcript.add({
        kind: 'assistant',
        turn,
        step,
        content: content === null ? null : preview(content),
        toolCalls: toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: preview(c.argumentsText) })),
      });
      const calls = toolCalls.length === 0 ? '' : `; none of its ${toolCalls.length} tool call(s) was made`;
      return { kind: 'too-large', size: replySize, where: `with the model's reply of step ${step} in turn ${turn}${calls}` };
    }
    messages.push({ role: 'assistant', content, ...(toolCalls.length > 0 ? { toolCalls } : {}) });
    ctx.modelSide?.feed({
      kind: 'model-answer',
      exchange: transcript.modelCalls,
      toolCalls: toolCalls.map((c) => ({ id: c.id, tool: c.name, arguments: canonicalArguments(c.argumentsText) })),
    });
    transcript.add({
      kind: 'assistant',
      turn,
      step,
      content,
      toolCalls: toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.argumentsText })),
    });
    // A reply cut short reads like a complete one (or a malformed call): the transcript says which it was.
    if (answer.reply.finishReason === 'length')
      transcript.add({
        kind: 'note',
        text: 'the endpoint cut this reply at its token limit (finish_reason "length"): its text or tool calls are incomplete',
      });
    if (toolCalls.length === 0) return { kind: 'answered', answer: content };
    for (const [index, call] of toolCalls.entries()) {
      transcript.toolCalls++;
      const { text: resultContent, isError, forwarded } = await makeCall(ctx, known, call.name, call.argumentsText);
      const resultSize = size.add(call.id, resultContent);
      const entry = { kind: 'tool-result', callId: call.id, tool: call.name, isError, forwarded } as const;
      if (resultSize !== null) {
        // The call was made (the report has it); the transcript keeps the start of its result.
        transcript.add({ ...entry, content: preview(resultContent) });
        const left = toolCalls.length - index - 1;
        return {
          kind: 'too-large',
          size: resultSize,
          where: `with the result of ${call.name}, tool call ${index + 1} of step ${step} in turn ${turn}${left > 0 ? `; the reply's ${left} later tool call(s) were not made` : ''}`,
        };
      }
      messages.push({ role: 'tool', toolCallId: call.id, content: resultContent });
      transcript.add({ ...entry, content: resultContent });
    }
  }
  transcript.add({
    kind: 'note',
    text: `max steps (${task.maxSteps}) reached in turn ${turn} without a final answer; the conversation ends`,
  });
  return { kind: 'max-steps' };
}

/** The canonical JSON of a tool call's arguments text, or the text itself when it is no JSON (R-14 matching). */

/**
 * One tool call of the model. A call the harness cannot even read (arguments that are not a JSON object,
 * a tool that was not offered) is answered with an error for the model and never forwarded, as agent
 * frameworks do: nothing reaches the upstream, so nothing can execute.
 */
async function makeCall(
  ctx: ConversationContext,
  known: ReadonlySet<string>,
  name: string,
  argumentsText: string,
): Promise<{ text: string; isError: boolean; forwarded: boolean }> {
  if (!known.has(name)) {
    ctx.transcript.add({ kind: 'note', text: `malformed tool call: unknown tool ${JSON.stringify(name)}; not forwarded` });
    ctx.transcript.malformed('a tool that was not offered');
    return {
      text: `Error: there is no tool named ${JSON.stringify(name)}. Available tools: ${[...known].join(', ')}.`,
      isError: true,
      forwarded: false,
    };
  }
  let args: unknown;
  try {
    args = argumentsText.trim() === '' ? {} : JSON.parse(argumentsText);
  } catch {
    args = undefined;
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    ctx.transcript.add({
      kind: 'note',
      text: `malformed tool call: the arguments of ${name} are not a JSON object; not forwarded`,
    });
    ctx.transcript.malformed('arguments not a JSON object');
    return {
      text: `Error: the arguments of ${name} are not a valid JSON object: ${argumentsText.slice(0, 200)}`,
      isError: true,
      forwarded: false,
    };
  }
  const result = await ctx.client.callTool({ name, arguments: args });
  return { text: toolMessageText(result, ctx.agent.isError), isError: result.isError === true, forwarded: true };
}
