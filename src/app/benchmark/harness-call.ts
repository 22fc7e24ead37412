/**
 * One call of a reference agent through the harness, in-process: the same steps as the proxy's call
 * pipeline (docs/architecture.md) — the session decides, the call is forwarded or answered with the
 * injected fault, the upstream's answer is judged by the proxy's own rule, F1 may replace it, and the
 * agent gets what a real agent behind the proxy would get.
 */
import type { ToolClassification } from '../../domain/classification.js';
import type { EvaluationSession, ToolCatalog } from '../../domain/session.js';
import type { ToolCallResult } from '../../ports/mcp-shapes.js';
import type { UpstreamSide } from '../../ports/upstream-side.port.js';
import { judgeUpstreamAnswer } from '../proxy/upstream-answer.js';

/** How long the harness waits for the upstream, as the proxy does by default. */
export const UPSTREAM_TIMEOUT_MS = 60_000;

/** The session's view of the classified tools: class by name, and whether the schema has a key field. */
export function catalogOf(classification: readonly ToolClassification[]): ToolCatalog {
  const byName = new Map(classification.map((tool) => [tool.name, tool]));
  return {
    classOf: (name) => byName.get(name)?.class ?? 'unclassified',
    acceptsKey: (name) => (byName.get(name)?.keyFields.length ?? 0) > 0,
  };
}

/** Sends one `tools/call` through the session to the upstream; resolves with what the agent sees. */
export async function callThroughHarness(
  session: EvaluationSession,
  upstream: UpstreamSide,
  tool: string,
  args: Record<string, unknown>,
): Promise<ToolCallResult> {
  const decision = session.receive(tool, args);
  let answer: ToolCallResult;
  if (!decision.forward) {
    answer = decision.injected ?? NOT_FORWARDED;
  } else {
    session.forwarded(decision.attemptId);
    const outcome = await upstream.callTool({ name: tool, arguments: args }, { timeoutMs: UPSTREAM_TIMEOUT_MS });
    const judged = judgeUpstreamAnswer(outcome, false, UPSTREAM_TIMEOUT_MS / 1000);
    answer = session.upstreamAnswered(decision.attemptId, judged.verdict) ?? judged.result;
  }
  session.delivered(decision.attemptId);
  return answer;
}

/** Only reachable if a non-forwarding decision came without its injected result. */
const NOT_FORWARDED: ToolCallResult = { content: [{ type: 'text', text: 'The call was not forwarded.' }], isError: true };
