/**
 * JSON-RPC batches on a line transport. MCP 2025-03-26 lets a client send several messages as one JSON
 * array (later versions dropped it, but a client that negotiated 2025-03-26 may still do it). Each member
 * is handled as if it came alone; the answers to its requests are held and written together as one
 * array, as JSON-RPC 2.0 asks, once every request of the batch has been answered. A request the agent
 * cancels gets no answer (MCP), so it stops being waited for. A batch without requests gets no answer.
 */
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { idKey } from '../wire/json-rpc-id-token.js';

/** One batch whose answers are being collected. */
interface OpenBatch {
  /** The keys of its requests still unanswered. */
  waiting: Set<string>;
  /** The JSON text of every answer so far, in the order they came. */
  answers: string[];
}

/** The key of an id: `1` and `"1"` are different ids. */
const keyOf = (id: RequestId): string => idKey(id)!;

const NOT_HELD = { held: false } as const;

/** The batches of one session with answers still to come. */
export class BatchAnswers {
  private readonly byKey = new Map<string, OpenBatch>();

  /** Whether a batch waits for an answer (the usual case, one message per line: none). */
  get waiting(): boolean {
    return this.byKey.size > 0;
  }

  /**
   * Opens a batch. `requestIds`: the ids of its requests that will be answered by the session;
   * `answers`: the JSON texts of its members already answered here (invalid members). Returns the line to
   * write at once when nothing is left to wait for (undefined when there is nothing to write).
   */
  open(requestIds: RequestId[], answers: string[]): string | undefined {
    const batch: OpenBatch = { waiting: new Set(), answers: [...answers] };
    for (const id of requestIds) {
      const key = keyOf(id);
      // An id already awaited (in this or another batch) is answered once; the agent reused it.
      if (this.byKey.has(key) || batch.waiting.has(key)) continue;
      batch.waiting.add(key);
      this.byKey.set(key, batch);
    }
    return this.flush(batch);
  }

  /**
   * Takes the answer to `id` when a batch waits for it: returns `{ held: true, line }`, `line` being the
   * whole batch when this was its last answer. `{ held: false }` when no batch waits for it.
   */
  answer(id: RequestId, text: string): { held: false } | { held: true; line: string | undefined } {
    if (!this.waiting) return NOT_HELD; // no batch open: the usual case, one answer per line
    const key = keyOf(id);
    const batch = this.byKey.get(key);
    if (batch === undefined) return { held: false };
    this.byKey.delete(key);
    batch.waiting.delete(key);
    batch.answers.push(text);
    return { held: true, line: this.flush(batch) };
  }

  /** The agent cancelled `id`: no answer will come. Returns the batch's line when it is now complete. */
  cancelled(id: RequestId): string | undefined {
    if (!this.waiting) return undefined;
    const key = keyOf(id);
    const batch = this.byKey.get(key);
    if (batch === undefined) return undefined;
    this.byKey.delete(key);
    batch.waiting.delete(key);
    return this.flush(batch);
  }

  private flush(batch: OpenBatch): string | undefined {
    if (batch.waiting.size > 0 || batch.answers.length === 0) return undefined;
    return `[${batch.answers.join(',')}]`;
  }
}
