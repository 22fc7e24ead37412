/**
 * `--upstream-replay FILE`: an `UpstreamSide` that serves a recording (`docs/replay.md`) instead of
 * starting the real upstream — its `initialize` (server info, instructions), its tool list and its answers —
 * so the proxy's pipeline, faults and judge run unchanged in front of it. A `tools/call` is matched by
 * tool name and canonical arguments (keys sorted; `_meta`, progress tokens and JSON-RPC ids are never
 * matched on); identical calls get the recorded answers in recorded order, with the recorded progress
 * notifications first. A call the recording has no (more) answers for is a replay miss: it is not
 * executed, the agent gets an error naming it, and the session is NOT_TESTED. Nothing ever reaches a live
 * server. A recorded answer is the recorded execution: the judge counts it as the upstream's.
 */
import { isPlainObject, ownValue } from '../../domain/json.js';
import type { ToolCallRequest, ToolDescriptor } from '../../ports/shapes/mcp-shapes.js';
import type {
  UpstreamCallOptions,
  UpstreamCallOutcome,
  UpstreamExit,
  UpstreamInfo,
  UpstreamSide,
} from '../../ports/upstream-side.port.js';
import type { Cassette } from './cassette-reader.js';
import { recordedTools } from './cassette-reader.js';
import { redact } from '../../domain/text/redaction.js';
import { callKey } from './cassette-text.js';
import { outcomeOfReply } from '../upstream-core/call-outcome.js';
import { classifyReply, toolCallReply, type RequestId } from '../upstream-core/incoming-message.js';

/** One recorded answer of a call: its progress notifications, then how it ended. */
interface RecordedAnswer {
  progress: Array<Record<string, unknown>>;
  outcome: UpstreamCallOutcome;
}

/** A `tools/call` of the recording not answered yet, while it is indexed. */
interface OpenCall {
  key: string;
  answer: RecordedAnswer;
  token: unknown;
}

/** The recording's exchanges, indexed once: identical calls queue in recorded order. */
export class ReplayIndex {
  readonly info: UpstreamInfo;
  readonly tools: ToolDescriptor[];
  readonly redacted: ReadonlySet<string>;
  private readonly answers = new Map<string, RecordedAnswer[]>();
  private readonly recorded = new Map<string, number>();
  /** Calls whose arguments the recording did not keep (past its size budget), by tool name. */
  private readonly notKept = new Map<string, number>();
  /** Why the recording stopped early (its size limit), if it did. */
  private stopped: string | undefined;

  constructor(readonly cassette: Cassette) {
    this.redacted = new Set(cassette.header.redacted);
    this.tools = (recordedTools(cassette.lines) ?? []) as ToolDescriptor[];
    const calls = new Map<unknown, OpenCall>();
    // The open calls by progress token, in the order they were sent: a notification goes to one call only,
    // the first open one with its token (tokens are unique among open requests; a recording that shares one
    // still costs one look-up per notification, never one per open call).
    const byToken = new Map<unknown, Set<OpenCall>>();
    let info: UpstreamInfo | undefined;
    let initializeId: unknown;
    for (const line of cassette.lines) {
      if (line.side === 'recording') this.stopped = line.stopped;
      if (line.side !== 'upstream') continue;
      if ('noAnswer' in line) {
        const call = calls.get(line.id);
        if (call !== undefined) this.settle(line.id, calls, byToken, line.noAnswer);
        continue;
      }
      const { message } = line;
      const id = message['id'];
      if (line.dir === 'send') {
        const params = isPlainObject(message['params']) ? message['params'] : {};
        if (message['method'] === 'initialize') initializeId = id;
        if (message['method'] !== 'tools/call') continue;
        const meta = ownValue(params, '_meta');
        const name = String(ownValue(params, 'name'));
        // A call whose arguments were not kept is never matched: a live call cannot be told to be it.
        if (line.notKept !== undefined) this.notKept.set(name, (this.notKept.get(name) ?? 0) + 1);
        const call: OpenCall = {
          key: line.notKept !== undefined ? `not kept ${String(id)}` : callKey(name, ownValue(params, 'arguments')),
          answer: { progress: [], outcome: { kind: 'replay-miss', detail: 'the recording ends before its answer' } },
          token: isPlainObject(meta) ? ownValue(meta, 'progressToken') : undefined,
        };
        // A request id sent again replaces the open call it named (as a live answer would settle the newest).
        if (calls.has(id)) this.settle(id, calls, byToken, calls.get(id)!.answer.outcome);
        calls.set(id, call);
        if (call.token !== undefined) {
          const open = byToken.get(call.token) ?? new Set<OpenCall>();
          open.add(call);
          byToken.set(call.token, open);
        }
        this.queue(call);
      } else if (message['method'] === 'notifications/progress') {
        const params = isPlainObject(message['params']) ? message['params'] : {};
        const token = ownValue(params, 'progressToken');
        const first = token === undefined ? undefined : byToken.get(token)?.values().next().value;
        first?.answer.progress.push(params);
      } else if (id === initializeId && info === undefined && isPlainObject(message['result'])) {
        info = infoOf(message['result']);
      } else if (calls.has(id) && line.notKept !== undefined) {
        const { bytes, sha256 } = line.notKept;
        const detail = `the recording did not keep this answer whole (${bytes} bytes, ${sha256}: it had outgrown its size budget)`;
        this.settle(id, calls, byToken, { kind: 'replay-miss', detail });
      } else if (calls.has(id)) {
        // Judged exactly as a live answer is (incoming-message.ts): one that is no MCP tool result is an
        // invalid answer, never served verbatim.
        this.settle(id, calls, byToken, outcomeOfReply(toolCallReply(classifyReply(id as RequestId, message).reply)));
      }
    }
    this.info = info ?? {};
  }

  /** The next recorded answer to this call, or why there is none (a miss). */
  take(name: string, args: unknown): RecordedAnswer | { miss: string } {
    const key = callKey(name, redact(args, this.redacted));
    const list = this.answers.get(key);
    const next = list?.shift();
    if (next !== undefined) return next;
    const found = this.missOf(name, key, list);
    const cut = this.notKept.get(name) ?? 0;
    const notes = [
      ...(cut > 0 ? [`the recording's size budget left the arguments of ${cut} call(s) of this tool unkept`] : []),
      ...(this.stopped !== undefined ? [`the recording stopped early: ${this.stopped}`] : []),
    ];
    return notes.length === 0 ? found : { miss: `${found.miss} (${notes.join('; ')})` };
  }

  private missOf(name: string, key: string, list: RecordedAnswer[] | undefined): { miss: string } {
    if (list !== undefined)
      return { miss: `every recorded answer to tools/call ${JSON.stringify(name)} with these arguments was already used` };
    const prefix = `${JSON.stringify(name)} `;
    let others = 0;
    for (const [k, queued] of this.answers) if (k.startsWith(prefix)) others += queued.length + this.used(k);
    return {
      miss: `no recorded tools/call ${JSON.stringify(name)} with these arguments${others === 0 ? '' : ` (it holds ${others} with other arguments)`}`,
    };
  }

  private queue(call: { key: string; answer: RecordedAnswer }): void {
    const list = this.answers.get(call.key) ?? [];
    list.push(call.answer);
    this.answers.set(call.key, list);
    this.recorded.set(call.key, (this.recorded.get(call.key) ?? 0) + 1);
  }

  /** Answers of this key already served. */
  private used(key: string): number {
    return (this.recorded.get(key) ?? 0) - (this.answers.get(key)?.length ?? 0);
  }

  private settle(
    id: unknown,
    calls: Map<unknown, OpenCall>,
    byToken: Map<unknown, Set<OpenCall>>,
    outcome: UpstreamCallOutcome,
  ): void {
    const call = calls.get(id)!;
    call.answer.outcome = outcome;
    calls.delete(id);
    if (call.token === undefined) return;
    const open = byToken.get(call.token);
    open?.delete(call);
    if (open?.size === 0) byToken.delete(call.token);
  }
}

export class ReplayUpstreamSide implements UpstreamSide {
  private closed = false;
  private readonly index: ReplayIndex;

  /** A fresh replay of the recording, with its own queues of answers (one per run of a trial). */
  constructor(cassette: Cassette) {
    this.index = new ReplayIndex(cassette);
  }

  connect(): Promise<UpstreamInfo> {
    return Promise.resolve({ ...this.index.info });
  }

  listTools(): Promise<ToolDescriptor[]> {
    return Promise.resolve(structuredClone(this.index.tools));
  }

  callTool(request: ToolCallRequest, options: UpstreamCallOptions): Promise<UpstreamCallOutcome> {
    if (this.closed) return Promise.resolve({ kind: 'unavailable', detail: 'the replay was closed' });
    const answer = this.index.take(request.name, request.arguments);
    if ('miss' in answer)
      return Promise.resolve({ kind: 'replay-miss', detail: `${answer.miss} in the recording ${this.index.cassette.path}` });
    // The recorded notifications, under the token this agent gave (a token is volatile: never matched on).
    const token = request.meta?.['progressToken'];
    if (token !== undefined && options.onProgress !== undefined)
      for (const params of answer.progress) options.onProgress({ ...structuredClone(params), progressToken: token });
    return Promise.resolve(structuredClone(answer.outcome));
  }

  onExit(_listener: (exit: UpstreamExit) => void): void {
    // A recording never goes away by itself.
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

function infoOf(result: Record<string, unknown>): UpstreamInfo {
  const info: UpstreamInfo = {};
  const serverInfo = ownValue(result, 'serverInfo');
  const instructions = ownValue(result, 'instructions');
  if (typeof instructions === 'string') info.instructions = instructions;
  if (isPlainObject(serverInfo)) {
    const name = ownValue(serverInfo, 'name');
    const version = ownValue(serverInfo, 'version');
    if (typeof name === 'string') info.serverName = name;
    if (typeof version === 'string') info.serverVersion = version;
  }
  return info;
}
