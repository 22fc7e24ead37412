/**
 * A verdict as the GenAI conventions' evaluation event (`gen_ai.evaluation.result`): its name, its label,
 * the score where there is one and why. Shared by every span that carries verdicts (a `proxy` session, a
 * trial run, a probe).
 */
import type { Attributes, TraceSpan } from '../../ports/tracer.port.js';

export function evaluationEvent(
  span: TraceSpan,
  name: string,
  label: string,
  explanation: string,
  score: number | null = null,
  extra: Attributes = {},
): void {
  span.addEvent('gen_ai.evaluation.result', {
    'gen_ai.evaluation.name': name,
    'gen_ai.evaluation.score.label': label,
    ...(score !== null ? { 'gen_ai.evaluation.score.value': score } : {}),
    'gen_ai.evaluation.explanation': explanation,
    ...extra,
  });
}
