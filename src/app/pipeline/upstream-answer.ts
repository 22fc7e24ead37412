/**
 * How the upstream's answer is judged and what the agent is shown: the upstream's result
 * verbatim whenever there is one; an `isError` result for JSON-RPC errors and for calls with no usable
 * answer.
 */
import type { ExecutionOutcome } from '../../domain/judging/attempt.js';
import { depthExceeds } from '../../domain/json.js';
import type { ToolCallResult } from '../../ports/shapes/mcp-shapes.js';
import type { UpstreamCallOutcome } from '../../ports/upstream-side.port.js';

export interface JudgedAnswer {
  execution: ExecutionOutcome;
  /** What the agent gets unless a fault replaces it. */
  result: ToolCallResult;
}

/**
 * Answers nested deeper than this are not passed on: the agent side could not serialise them (JSON.stringify
 * gives up at a few thousand levels), and the agent would wait for an answer that never comes.
 */
export const MAX_ANSWER_DEPTH = 1000;

function errorText(text: string): ToolCallResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** Judges one upstream outcome. `hasOutputSchema`: the tool declares an outputSchema. */
export function judgeUpstreamAnswer(
  outcome: UpstreamCallOutcome,
  hasOutputSchema: boolean,
  timeoutSeconds: number,
): JudgedAnswer {
  switch (outcome.kind) {
    case 'result': {
      const result = outcome.result;
      if (depthExceeds(result, MAX_ANSWER_DEPTH)) {
        const text = `The server sent an answer nested more than ${MAX_ANSWER_DEPTH} levels deep; it cannot be passed on. The call may have been executed.`;
        return {
          execution: result.isError === true ? { kind: 'rejected' } : { kind: 'unknown', reason: 'invalid-answer' },
          result: errorText(text),
        };
      }
      if (result.isError === true) return { execution: { kind: 'rejected' }, result };
      if (hasOutputSchema && result.structuredContent === undefined) {
        return { execution: { kind: 'unknown', reason: 'missing-structured-content' }, result };
      }
      return { execution: { kind: 'executed', answer: result }, result };
    }
    case 'protocol-error':
      return {
        execution: { kind: 'unknown', reason: 'protocol-error' },
        result: errorText(`MCP error ${outcome.code}: ${outcome.message}`),
      };
    case 'timeout':
      return {
        execution: { kind: 'unknown', reason: 'timeout' },
        result: errorText(`MCP error -32001: Request timed out. The server did not answer within ${timeoutSeconds} seconds.`),
      };
    case 'connection-lost':
      return {
        execution: { kind: 'unknown', reason: 'connection-lost' },
        result: errorText(`MCP error -32000: Connection closed: ${outcome.detail}`),
      };
    case 'too-large':
      return {
        execution: { kind: 'unknown', reason: 'too-large' },
        result: errorText(`The server's answer was too large (over 10 MB): ${outcome.detail}`),
      };
    case 'invalid-answer':
      return {
        execution: { kind: 'unknown', reason: 'invalid-answer' },
        result: errorText(`The server sent an invalid answer: ${outcome.detail}`),
      };
    case 'not-sent':
      return {
        execution: { kind: 'unavailable' },
        result: errorText(`The call was not forwarded to the upstream: ${outcome.detail}`),
      };
    case 'replay-miss':
      return {
        execution: { kind: 'unavailable', replayMiss: true },
        result: errorText(`REPLAY_MISS: ${outcome.detail}. The call was not executed.`),
      };
    case 'unavailable':
      return {
        execution: { kind: 'unavailable' },
        result: errorText(
          `UPSTREAM_UNAVAILABLE: the upstream MCP server is no longer running (${outcome.detail}). The call was not forwarded.`,
        ),
      };
  }
}
