/**
 * The two read-only audit tools the proxy adds. They show the evaluation to the agent; the agent
 * cannot change or reset it. Off with `--audit-tools off` for real measurements.
 */
import { formatReportText, formatScoreAnswer } from '../../domain/report/format.js';
import type { ToolClassification } from '../../domain/judging/classification.js';
import { canonicalJson } from '../../domain/json.js';
import { previewArgs } from '../../domain/judging/operation.js';
import { buildReport, evaluate } from '../../domain/report/report.js';
import type { EvaluationSession } from '../../domain/judging/session.js';
import type { ToolCallResult, ToolDescriptor } from '../../ports/shapes/mcp-shapes.js';

export const GET_REPORT = 'cuonztech__get_report';
export const GET_SCORE = 'cuonztech__get_score';

export const AUDIT_TOOLS: readonly ToolDescriptor[] = [
  {
    name: GET_REPORT,
    description:
      'cuonztech-agent-harness audit: the evaluation of this session so far (verdict, operations, violations, observations). Read-only. Pass format "json" for the full JSON report.',
    inputSchema: {
      type: 'object',
      properties: { format: { type: 'string', enum: ['text', 'json'], description: 'text (default) or json' } },
      additionalProperties: false,
    },
    annotations: {
      title: 'Harness report',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  },
  {
    name: GET_SCORE,
    description:
      'cuonztech-agent-harness audit: the 0–100 resilience score of this session and the prompt patches for observed misbehaviour. Read-only.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: {
      title: 'Harness score',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  },
];

export function isAuditTool(name: string): boolean {
  return name === GET_REPORT || name === GET_SCORE;
}

/** Answers an audit tool call from the session's current state. */
export function answerAuditTool(
  name: string,
  args: unknown,
  session: EvaluationSession,
  tools: readonly ToolClassification[],
  { replayed = false }: { replayed?: boolean } = {},
): ToolCallResult {
  const evaluation = evaluate(session);
  if (name === GET_SCORE) return text(formatScoreAnswer(evaluation.score, evaluation.patches, evaluation.findings));
  const report = buildReport(session, 'proxy', tools, evaluation);
  const format =
    typeof args === 'object' && args !== null && !Array.isArray(args)
      ? (Object.getOwnPropertyDescriptor(args, 'format')?.value as unknown)
      : undefined;
  if (format === 'json') {
    const document = {
      ...(replayed ? { replayed: true } : {}),
      ...report,
      score: evaluation.score,
      patches: evaluation.patches,
      ...(evaluation.findings.length > 0 ? { findings: evaluation.findings } : {}),
    };
    return { content: [{ type: 'text', text: JSON.stringify(document, null, 2) }], structuredContent: document };
  }
  if (format !== undefined && format !== 'text') {
    // canonicalJson, not JSON.stringify: any value, however deep, is described without throwing.
    return {
      content: [{ type: 'text', text: `format must be "text" or "json", got ${previewArgs(canonicalJson(format), 80)}` }],
      isError: true,
    };
  }
  const body = formatReportText(report, evaluation.score);
  return text(replayed ? `${REPLAYED_LINE}\n${body}` : body);
}

/** `get_report`'s first line when the upstream is a recording: the session is not a new sample. */
export const REPLAYED_LINE =
  'Replayed: the upstream is a recording (--upstream-replay); this session repeats a recorded sample, it is not a new one.';

function text(value: string): ToolCallResult {
  return { content: [{ type: 'text', text: value }] };
}
