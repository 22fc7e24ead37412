/**
 * The badge and evidence of a repeated write in the HTML transcript: who sent it again (R-14), and why it
 * matters. One numbering on the page: "attempt k" is always the k-th attempt of its operation (as the
 * timeline counts them); the session's running number of a tool call (the report's and the journal's
 * `attempt`) is "call #n".
 */
import type { RepeatAttribution, RepeatSource } from '../../domain/judging/attribution.js';
import type { CheckedAttribution } from '../check/check-model.js';
import { htmlText as h } from './escape.js';
import { SOURCE_WORDS } from './words.js';

/** A duration in words: `850 ms`, `1.25 s`. */
export const seconds = (ms: number): string =>
  ms < 1000 ? `${Math.round(ms)} ms` : `${(Math.round(ms / 10) / 100).toFixed(2)} s`;

const SOURCE_CLASS: Record<RepeatSource, string> = {
  model: 'src-model',
  user: 'src-user',
  runtime: 'src-runtime',
  unknown: 'src-unknown',
};

/** The runtime behaviour a `runtime` repeat's signal names (R-14), in words. */
const SIGNAL_WORDS: Record<string, string> = {
  'same-request-id': 'the same JSON-RPC request (same id) was sent again: the client or its transport retried it',
  'other-session-unanswered': 'sent again in another MCP session while the earlier attempt was unanswered (a second connection)',
  'same-tool-call-twice': "the model's one tool call was carried out twice",
  'unrequested-call': 'no model answer asked for this call',
};

/** A short value (an id, a tool name) escaped and cut to `max` characters. */
export function shortText(text: string, max = 120): string {
  return text.length <= max ? h(text) : `${h(text.slice(0, max))}…`;
}

const key = (session: number, call: number): string => `${session}:${call}`;

/**
 * Each attempt's number within its operation (1 = first), by `session:call`, from the chain of repeats the
 * attribution lists (every repeat names the attempt before it): the first attempt is the one no repeat is.
 */
export function operationAttempts(attribution: readonly RepeatAttribution[]): Map<string, number> {
  const numbers = new Map<string, number>();
  const byEarlier = new Map(attribution.map((a) => [key(a.evidence.earlierSession, a.evidence.earlierAttempt), a]));
  const repeats = new Set(attribution.map((a) => key(a.session, a.attempt)));
  for (const first of byEarlier.keys()) {
    if (repeats.has(first)) continue;
    numbers.set(first, 1);
    let next = byEarlier.get(first);
    for (let n = 2; next !== undefined && !numbers.has(key(next.session, next.attempt)); n++) {
      numbers.set(key(next.session, next.attempt), n);
      next = byEarlier.get(key(next.session, next.attempt));
    }
  }
  return numbers;
}

/** `attempt 2 (call #5)`, or `call #5` when its number within the operation is not known. */
export function attemptWords(session: number, call: number, attempts: ReadonlyMap<string, number>): string {
  const n = attempts.get(key(session, call));
  return n === undefined ? `call #${call}` : `attempt ${n} (call #${call})`;
}

/**
 * The badge and evidence of a repeated write: who sent it again, how long after which attempt, and why it
 * matters; `anchor` links the model answer that asked for it (null: the page does not draw that answer);
 * `attempts` numbers the attempts within their operation ({@link operationAttempts}).
 */
export function attributionBadge(
  a: CheckedAttribution,
  anchor: ((exchange: number) => string) | null,
  attempts: ReadonlyMap<string, number>,
): string {
  const e = a.evidence;
  const signal = a.runtimeSignal;
  const facts = [
    ...(signal === null
      ? []
      : [Object.hasOwn(SIGNAL_WORDS, signal) ? SIGNAL_WORDS[signal]! : `signal: ${shortText(signal, 80)}`]),
    `repeat of ${attemptWords(e.earlierSession, e.earlierAttempt, attempts)}${e.earlierSession === a.session ? '' : ` in MCP session ${e.earlierSession}`}, ${seconds(e.sinceEarlierMs)} after it`,
    e.earlierDelivered ? 'its answer had reached the agent' : 'its answer had not reached the agent yet',
    ...(e.earlierCancelled ? ['the agent had cancelled it'] : []),
    ...(e.modelAnswer !== undefined
      ? [
          `asked for by ${anchor === null ? '' : `<a href="#${anchor(e.modelAnswer)}">`}model answer #${e.modelAnswer}${anchor === null ? '' : '</a>'}${e.toolCallId === undefined ? '' : ` (tool call <span class="mono">${shortText(e.toolCallId)}</span>)`}`,
        ]
      : a.source === 'runtime' && signal === null
        ? ['no model answer asked for it']
        : []),
  ];
  return (
    `<div class="attr ${SOURCE_CLASS[a.source]}"><span class="badge ${SOURCE_CLASS[a.source]}">source: ${a.source}</span> ` +
    `<b>${h(SOURCE_WORDS[a.source])}</b><div class="small">${facts.join('; ')}</div></div>`
  );
}
