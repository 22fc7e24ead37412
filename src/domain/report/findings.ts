/**
 * Findings: what a prompt patch cannot answer. A duplicate the runtime caused — a client, SDK,
 * framework or proxy sent the write again without the model asking — is not the model's decision, so no
 * system-prompt text will prevent it; the report names the runtime behaviour instead, with its count.
 */
import type { RuntimeSignal } from '../judging/attribution.js';

export type FindingId = 'RUNTIME_RESEND';

export interface Finding {
  id: FindingId;
  severity: 'HIGH';
  /** The runtime behaviour (the attribution's `evidence.signal`). */
  behaviour: RuntimeSignal;
  /** Extra executions of writes caused by this behaviour. */
  count: number;
  /** The observed behaviour in words, with its count. */
  trigger: string;
  /** What to do about it, and that a prompt change will not fix it. */
  text: string;
}

/** Extra executions caused by the runtime, per behaviour (summed over the violating operations by `evaluate`). */
export type RuntimeRepeats = Readonly<Record<RuntimeSignal, number>>;

export const RUNTIME_BEHAVIOURS: readonly RuntimeSignal[] = [
  'same-tool-call-twice',
  'unrequested-call',
  'same-request-id',
  'other-session-unanswered',
];

const BEHAVIOUR_WORDS: Readonly<Record<RuntimeSignal, string>> = {
  'same-tool-call-twice': 'carried out the same tool call of the model twice',
  'unrequested-call': 'sent a write that no model answer asked for',
  'same-request-id': 'sent the same JSON-RPC request again (the same request id in the same MCP session)',
  'other-session-unanswered': 'sent the write again in another MCP session while the first attempt was still unanswered',
};

const NOT_A_PROMPT =
  'A prompt change will not fix this: the model did not ask for the write again. Look at the agent runtime — ' +
  'a client or SDK retry option, a framework that re-runs a tool step on resume or replays a checkpoint, a ' +
  'connector that opens a second session — and make it send each tool call once, or give the write an ' +
  'idempotency key the server honours.';

/** One finding per runtime behaviour that caused an extra execution; none for a clean run. */
export function deriveFindings(repeats: RuntimeRepeats): Finding[] {
  return RUNTIME_BEHAVIOURS.filter((b) => repeats[b] > 0).map((behaviour) => ({
    id: 'RUNTIME_RESEND',
    severity: 'HIGH',
    behaviour,
    count: repeats[behaviour],
    trigger: `The agent's runtime ${BEHAVIOUR_WORDS[behaviour]}: ${repeats[behaviour]} extra execution(s).`,
    text: NOT_A_PROMPT,
  }));
}

/** The finding as the Markdown block shown by `cuonztech__get_score` and the CLI, beside the patches. */
export function formatFinding(finding: Finding): string {
  return `## [${finding.severity}] ${finding.id} (${finding.behaviour})\n\n**Trigger:** ${finding.trigger}\n\n${finding.text}`;
}
