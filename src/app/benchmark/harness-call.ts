/**
 * One call of a reference agent through the harness, in-process: the proxy's own call pipeline
 * (`../pipeline/call-pipeline.ts`) — the session decides, the call is forwarded or answered with the
 * injected fault, the upstream's answer is judged by the proxy's own rule, F1 may replace it, and the
 * agent gets what a real agent behind the proxy would get.
 */
import type { ToolClassification } from '../../domain/judging/classification.js';
import type { EvaluationSession } from '../../domain/judging/session.js';
import type { ToolCatalog } from '../../domain/judging/session-state.js';
import type { ToolCallResult, ToolDescriptor } from '../../ports/shapes/mcp-shapes.js';
import type { Timer } from '../../ports/timer.port.js';
import type { UpstreamSide } from '../../ports/upstream-side.port.js';
import { CallPipeline } from '../pipeline/call-pipeline.js';

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

/**
 * The proxy's call pipeline for one run: the same judging, F1 replacement and answer rules as behind the
 * proxy (an answer without `structuredContent` from a tool with an `outputSchema` is unknown, R-1.3), with
 * no report file. `outputSchemaTools`: the backend's tools that declare one, read once from its list (as the
 * proxy does at start-up), not once per run.
 */
export function harnessPipeline(
  session: EvaluationSession,
  upstream: UpstreamSide,
  outputSchemaTools: ReadonlySet<string>,
  timer?: Timer,
): CallPipeline {
  return new CallPipeline({
    session,
    upstream,
    callTimeoutMs: UPSTREAM_TIMEOUT_MS,
    outputSchemaTools,
    publish: null,
    ...(timer ? { timer } : {}),
  });
}

/** The names of the listed tools that declare an `outputSchema`. */
export function outputSchemaToolsOf(tools: readonly ToolDescriptor[]): ReadonlySet<string> {
  return new Set(tools.filter((tool) => tool.outputSchema !== undefined).map((tool) => tool.name));
}

/** Sends one `tools/call` through the pipeline to the upstream; resolves with what the agent sees. */
export function callThroughHarness(pipeline: CallPipeline, tool: string, args: Record<string, unknown>): Promise<ToolCallResult> {
  return pipeline.call({ name: tool, arguments: args });
}
