/**
 * A model-side fault (`trial --model-fault`, decided in `src/domain/faults/model-fault.ts`) as the agent program's
 * client sees it, in the wire format it used: `500` and `429` (with `Retry-After`) carry the format's own
 * error body; `timeout` sends nothing until the client gives up (closes the connection) or the time
 * passes, then drops the connection; `cut` sends the format's stream up to and including its first
 * tool-call chunk (the first half of its frames when the answer has no tool call), or the first half of
 * the JSON body, and then breaks the connection off (the HTTP message is left incomplete).
 */
import type { ServerResponse } from 'node:http';
import type { ChatReply } from '../../ports/chat-model.port.js';
import type { ModelFaultKind } from '../../domain/faults/model-fault.js';
import type { AnswerStamp, DecodedRequest, WireFormat } from './wire.js';

/** What the program got, for the transcript: the status (0: none) and the line that says it was the fault. */
export interface FaultSent {
  status: number;
  error: string;
}

/**
 * Sends the fault. `reply` is the answer to cut (`cut` only): the stub model's, or in forward mode a
 * stand-in (the request is never sent, so there is no real answer to cut).
 */
export function sendFault(
  res: ServerResponse,
  format: WireFormat,
  fault: ModelFaultKind,
  decoded: DecodedRequest,
  reply: ChatReply,
  stamp: AnswerStamp,
): Promise<FaultSent> {
  switch (fault.kind) {
    case '500': {
      const error = 'model fault 500: the harness answered this request with an internal server error';
      writeJson(res, 500, format.errorBody(500, error), {});
      return Promise.resolve({ status: 500, error });
    }
    case '429': {
      const error = `model fault 429: the harness answered this request with a rate limit (Retry-After ${fault.retryAfterSeconds} s)`;
      writeJson(res, 429, format.errorBody(429, error), { 'retry-after': String(fault.retryAfterSeconds) });
      return Promise.resolve({ status: 429, error });
    }
    case 'timeout':
      return holdUnanswered(res, fault.ms);
    case 'cut':
      return Promise.resolve(cut(res, format, decoded, reply, stamp));
  }
}

function writeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function holdUnanswered(res: ServerResponse, ms: number): Promise<FaultSent> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      res.destroy();
      resolve({ status: 0, error: `model fault timeout: no answer; the harness dropped the connection after ${ms} ms` });
    }, ms);
    res.on('close', () => {
      clearTimeout(timer);
      resolve({ status: 0, error: 'model fault timeout: no answer; the client gave up and closed the connection' });
    });
  });
}

/** The frame after which a streamed answer is cut: its first tool-call chunk, else half-way (at least one frame). */
export function cutFrames(frames: readonly string[], format: WireFormat): string[] {
  const marker =
    format.name === 'chat-completions'
      ? '"tool_calls"'
      : format.name === 'anthropic-messages'
        ? '"type":"tool_use"'
        : '"type":"function_call"';
  const first = frames.findIndex((f) => f.includes(marker));
  const keep = first >= 0 ? first + 1 : Math.max(1, Math.floor(frames.length / 2));
  return frames.slice(0, Math.min(keep, frames.length - 1));
}

function cut(res: ServerResponse, format: WireFormat, decoded: DecodedRequest, reply: ChatReply, stamp: AnswerStamp): FaultSent {
  if (decoded.stream) {
    const frames = format.encodeStream(reply, decoded.model, stamp, decoded);
    const kept = cutFrames(frames, format);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    // Broken off once the frames are on the socket.
    res.write(kept.join(''), () => res.destroy());
    return {
      status: 200,
      error: `model fault cut: the stream was broken off after ${kept.length} of its ${frames.length} events`,
    };
  }
  const body = Buffer.from(JSON.stringify(format.encodeJson(reply, decoded.model, stamp)));
  const half = Math.floor(body.length / 2);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
  res.write(body.subarray(0, half), () => res.destroy());
  return { status: 200, error: `model fault cut: the body was broken off after ${half} of its ${body.length} bytes` };
}
