/**
 * The stub model: plays the model from a {@link StubScript}. It is a {@link ChatModel}, so it answers the
 * model gateway of an agent program's run as well as the built-in loop.
 *
 * It keeps no state between requests: every answer is decided from the conversation the request carries,
 * so a request sent again unchanged (a framework's retry of the model request) gets the same answer, with
 * the same tool-call id. Tool-call ids count the tool calls already in the conversation
 * (`call_stub_1`, `call_stub_2`, …): a new request for the write has a new id, and a runtime that carries
 * out one tool call twice sends the same id twice.
 */
import type { ChatMessage, ChatModel, ChatModelCheck, ChatOutcome, ChatReply, ChatRequest } from '../../ports/chat-model.port.js';
import type { ScriptedCall, StubScript } from '../../ports/shapes/stub-script.js';

/** What the model knows of its write, from the answers in the conversation. */
export type StubKnowledge = 'done' | 'not-done' | 'unsure';

interface CallSeen {
  id: string;
  role: 'write' | 'check' | 'other';
  /** The tool's answer, when the conversation has it. */
  answer?: string;
}

export class StubModel implements ChatModel {
  private readonly uncertain: RegExp;
  private readonly found: RegExp | undefined;

  constructor(
    private readonly script: StubScript,
    /** The honesty question the run will ask as its last user turn, if any: the model answers it with a claim. */
    private readonly honestyQuestion?: string,
  ) {
    this.uncertain = new RegExp(script.uncertainPattern, 'im');
    this.found = script.foundPattern === undefined ? undefined : new RegExp(script.foundPattern, 'im');
  }

  check(): Promise<ChatModelCheck> {
    return Promise.resolve({ ok: true });
  }

  complete(request: ChatRequest): Promise<ChatOutcome> {
    return Promise.resolve({ ok: true, reply: this.reply(request.messages) });
  }

  /** The answer to a conversation. */
  reply(messages: readonly ChatMessage[]): ChatReply {
    const calls = this.callsSeen(messages);
    const knowledge = this.knowledge(calls);
    const writes = calls.filter((c) => c.role === 'write').length;
    const last = messages.at(-1);
    if (last === undefined || last.role === 'system' || last.role === 'assistant') return this.final(knowledge);
    if (last.role === 'user') {
      if (this.isHonestyQuestion(last.content))
        return this.script.checkBeforeClaim && this.script.check !== undefined
          ? this.call(this.script.check, calls)
          : this.claim(knowledge);
      if (!messages.some((m) => m.role === 'assistant')) return this.call(this.script.write, calls);
      const policy = this.script.afterFollowUp;
      // A user who asks again is obeyed by a naive model whatever it knows; the others act only on doubt.
      if (policy === 'resend' && writes < this.script.maxWrites) return this.call(this.script.write, calls);
      return policy === 'answer' ? this.final(knowledge) : this.afterUncertain(policy, knowledge, calls, writes);
    }
    // In the honesty question's turn, the answer to the check made before the claim: the claim.
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    if (this.isHonestyQuestion(lastUser?.content ?? null)) return this.claim(knowledge);
    // A tool's answer: the call it answers decides (the last call when it names none).
    const answered = calls.find((c) => c.id === last.toolCallId) ?? calls.at(-1);
    if (answered?.role === 'write' && answered.answer !== undefined && this.isUncertain(answered.answer))
      return this.afterUncertain(this.script.afterUncertain, knowledge, calls, writes);
    return this.final(knowledge);
  }

  private afterUncertain(
    policy: StubScript['afterUncertain'],
    knowledge: StubKnowledge,
    calls: readonly CallSeen[],
    writes: number,
  ): ChatReply {
    if (knowledge !== 'unsure') return this.final(knowledge);
    if (policy === 'resend' && writes < this.script.maxWrites) return this.call(this.script.write, calls);
    if (policy === 'check-then-stop' && this.script.check !== undefined && !this.checkedAfterLastWrite(calls))
      return this.call(this.script.check, calls);
    return this.final(knowledge);
  }

  private checkedAfterLastWrite(calls: readonly CallSeen[]): boolean {
    for (let i = calls.length - 1; i >= 0; i--) {
      if (calls[i]!.role === 'check') return true;
      if (calls[i]!.role === 'write') return false;
    }
    return false;
  }

  private callsSeen(messages: readonly ChatMessage[]): CallSeen[] {
    const calls: CallSeen[] = [];
    const byId = new Map<string, CallSeen>();
    for (const message of messages) {
      if (message.role === 'assistant') {
        for (const call of message.toolCalls ?? []) {
          const seen: CallSeen = { id: call.id, role: this.roleOf(call.name) };
          calls.push(seen);
          byId.set(call.id, seen);
        }
      } else if (message.role === 'tool' && message.toolCallId !== undefined) {
        const seen = byId.get(message.toolCallId);
        if (seen !== undefined) seen.answer = message.content ?? '';
      }
    }
    return calls;
  }

  private roleOf(tool: string): CallSeen['role'] {
    if (tool === this.script.write.tool) return 'write';
    if (tool === this.script.check?.tool) return 'check';
    return 'other';
  }

  /** A write answered without doubt, or a check that found it, is done; a check that did not find it is not. */
  private knowledge(calls: readonly CallSeen[]): StubKnowledge {
    let knowledge: StubKnowledge = 'unsure';
    for (const call of calls) {
      if (call.answer === undefined) continue;
      if (call.role === 'write' && !this.isUncertain(call.answer)) knowledge = 'done';
      else if (call.role === 'check' && knowledge !== 'done' && !this.isUncertain(call.answer))
        knowledge = this.found === undefined || this.found.test(call.answer) ? 'done' : 'not-done';
    }
    return knowledge;
  }

  private isUncertain(answer: string): boolean {
    return this.uncertain.test(answer);
  }

  private isHonestyQuestion(content: string | null): boolean {
    return this.honestyQuestion !== undefined && content !== null && content.trim() === this.honestyQuestion.trim();
  }

  private call(call: ScriptedCall, calls: readonly CallSeen[]): ChatReply {
    return {
      content: null,
      toolCalls: [{ id: `call_stub_${calls.length + 1}`, name: call.tool, argumentsText: JSON.stringify(call.arguments) }],
      finishReason: 'tool_calls',
    };
  }

  private text(knowledge: StubKnowledge): string {
    const final = this.script.final;
    return knowledge === 'done' ? final.done : knowledge === 'not-done' ? final.notDone : final.unsure;
  }

  private final(knowledge: StubKnowledge): ChatReply {
    return { content: this.text(knowledge), toolCalls: [], finishReason: 'stop' };
  }

  private claim(knowledge: StubKnowledge): ChatReply {
    const said = this.script.claim === 'claims-success' ? 'done' : knowledge;
    const word = said === 'done' ? 'YES' : said === 'not-done' ? 'NO' : 'UNKNOWN';
    return { content: `${word} — ${this.text(said)}`, toolCalls: [], finishReason: 'stop' };
  }
}
