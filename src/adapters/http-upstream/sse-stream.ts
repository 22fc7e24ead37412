/**
 * Wraps an SSE response body: each message event goes through the exchange hooks (recorded raw, passed
 * on sanitised) before the SDK reads it, and the way the stream ends is reported when it matters. An
 * event over the size limit, on any stream, ends the stream and is reported as too-large.
 */
import { reportNetworkError, reportTooLarge, type AwaitedReplies, type ExchangeHooks } from './exchange-hooks.js';
import { SseRewriter } from './sse-rewriter.js';

/**
 * What a stream is for. `answers`: the response to a POST, carrying the replies to its requests;
 * `channel`: the legacy SSE transport's one GET stream, carrying every reply; `standalone`: the
 * Streamable HTTP GET stream for server-initiated messages, which the SDK reopens by itself.
 */
export type SseRole = 'answers' | 'channel' | 'standalone';

/** The upstream's stream, as the SDK will read it. */
export function observeSse(
  source: ReadableStream<Uint8Array>,
  role: SseRole,
  awaited: AwaitedReplies,
  hooks: ExchangeHooks,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const rewriter = new SseRewriter((data) => hooks.incoming(data, awaited), hooks.maxMessageBytes);
  return new ReadableStream<Uint8Array>({
    // Reads until there is something to hand on: a pull that enqueues nothing is not repeated by the
    // stream, so returning after half an event would stall it until more was asked for.
    async pull(controller) {
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          if (role !== 'standalone') reportNetworkError(hooks, error);
          controller.error(error);
          return;
        }
        const text = rewriter.push(chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true }));
        if (text !== '') controller.enqueue(encoder.encode(text));
        if (rewriter.overflowed) {
          // Stop reading; replies already parsed are in the ledger even though erroring drops the queue.
          void reader.cancel().catch(() => undefined);
          controller.error(reportTooLarge(hooks));
          return;
        }
        if (chunk.done) {
          reportEnd(role, awaited, rewriter.sawEventId, hooks);
          controller.close();
          return;
        }
        if (text !== '') return;
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/**
 * A stream that ended cleanly: a failure only if replies were still due on it (a cancelled request gets
 * none) and the SDK cannot resume it.
 */
function reportEnd(role: SseRole, awaited: AwaitedReplies, resumable: boolean, hooks: ExchangeHooks): void {
  if (hooks.closing()) return;
  if (role === 'channel') {
    hooks.failed({ kind: 'ended', text: 'the upstream closed its event stream' });
  } else if (role === 'answers' && !resumable && [...awaited.keys()].some((id) => !hooks.abandoned(id))) {
    hooks.failed({ kind: 'ended', text: 'the upstream closed the response stream before answering' });
  }
}
