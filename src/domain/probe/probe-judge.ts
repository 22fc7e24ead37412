/**
 * The judge of `probe` (docs/probe.md): what a probe saw — the upstream's answers and the effects the
 * count tool saw — becomes a label, and a tool's labels become its verdict. Pure and deterministic.
 *
 * Effects are counted with `--count-with` (the items a read tool lists, before and after each call; a
 * change either way is an effect, so a delete counts as well as a create).
 * Without it the answers alone decide, and the reason says so: an identical answer is a replay, a
 * different one a new result.
 */
import type { EffectsVerdict, KeyDiff } from '../effects/effects-verdict.js';
import type { BoundedListing } from '../effects/bounded-listing.js';
import { errorGist } from './error-gist.js';
import type { ProbeDefinition, ProbeId, ToolPromise } from './probes.js';

export type ProbeLabel =
  | 'replay_ok'
  | 'double_created'
  | 'refused_ok'
  | 'silent_new_result'
  | 'overwrote_first'
  | 'conflict_ok'
  | 'wait_replay_ok'
  | 'fingerprint_dedup'
  | 'new_effect_ok'
  | 'hint_holds'
  | 'hint_broken'
  | 'inconclusive';

/** Labels that break the promise the probe tests (on a judged probe). */
export const BREAKING_LABELS: ReadonlySet<ProbeLabel> = new Set([
  'double_created',
  'silent_new_result',
  'overwrote_first',
  'hint_broken',
]);

/** What the upstream answered one call: a result, an error the agent can see (isError, JSON-RPC error), or none. */
export interface SeenAnswer {
  kind: 'ok' | 'error' | 'none';
  /** The answer as canonical text (content and structuredContent), or the error's message; for the evidence and comparisons. */
  text: string;
}

export interface ProbeEvidence {
  /**
   * The upstream's answers to the forwarded calls, in the order they reached it (F1's real answer, not its
   * timeout; F5's call is not forwarded; P9's late write last, after its retry).
   */
  answers: SeenAnswer[];
  /**
   * Items the count tool saw: before the probe, then after each forwarded call (P3: after both); null
   * without `--count-with`.
   */
  counts: number[] | null;
  /**
   * The count tool's answers at the same points, bounded (`src/domain/effects/bounded-listing.ts`: the answer's
   * lines counted, hashed, the first few kept): an overwrite changes the hash without a new item.
   */
  listings: BoundedListing[] | null;
  /** P3: the second call was sent before the first was answered. */
  concurrent?: boolean;
  /**
   * R-15, with `--effect-key`: the effects verdict of the records the view listed before the probe and
   * after its last call, per effect key (it stands beside the label, never changes it).
   */
  effects?: ProbeEffects;
}

/** A probe's effects: the verdict, its reason and every key that changed or was expected. */
export interface ProbeEffects {
  verdict: EffectsVerdict;
  reason: string;
  keys: KeyDiff[];
}

export interface ProbeResult {
  probe: ProbeId;
  label: ProbeLabel;
  reason: string;
}

const result = (probe: ProbeId, label: ProbeLabel, reason: string): ProbeResult => ({ probe, label, reason });
const inconclusive = (probe: ProbeId, reason: string): ProbeResult => result(probe, 'inconclusive', reason);
const BY_ANSWERS = ' (judged by the answers: no --count-with)';
const cut = (text: string): string => errorGist(text, 200);

/** The first forwarded call must have done its work: otherwise nothing can be judged (a rejected example). */
function firstFailed(probe: ProbeId, answers: readonly SeenAnswer[], counts: number[] | null): ProbeResult | null {
  const first = answers[0];
  if (first === undefined) return inconclusive(probe, 'no call reached the server');
  if (first.kind === 'error') return inconclusive(probe, `the server refused the example: ${cut(first.text)}`);
  if (first.kind === 'none') return inconclusive(probe, `the first call got no answer: ${cut(first.text)}`);
  if (counts !== null && counts.length >= 2 && Math.abs(counts[1]! - counts[0]!) < 1 && probe !== 'P3')
    return inconclusive(probe, `the first call made no effect the count tool sees (${counts[0]} → ${counts[1]} items)`);
  return null;
}

/** The second of two sequential calls: the new effects it made (null: not counted) and its answer. */
function second(evidence: ProbeEvidence): { added: number | null; answer: SeenAnswer | undefined; same: boolean } {
  const { counts, answers } = evidence;
  const added = counts === null || counts.length < 3 ? null : Math.abs(counts[2]! - counts[1]!);
  const answer = answers[1];
  return { added, answer, same: answer !== undefined && answers[0] !== undefined && answer.text === answers[0].text };
}

/** P1, P5, P7, P9: the same call again — one effect and the first answer replayed, or a refusal. */
function sameAgain(probe: ProbeId, evidence: ProbeEvidence, what: string): ProbeResult {
  const { added, answer, same } = second(evidence);
  if (answer === undefined || answer.kind === 'none')
    return inconclusive(probe, `the second call got no answer${answer ? `: ${cut(answer.text)}` : ''}`);
  if (added !== null) {
    if (added >= 1) return result(probe, 'double_created', `${what}: ${added} more effect(s) after the second call`);
    if (answer.kind === 'error') return result(probe, 'refused_ok', `${what}: refused (${cut(answer.text)}), no further effect`);
    return result(
      probe,
      'replay_ok',
      `${what}: no further effect${same ? ', the first answer replayed' : ', a different answer'}`,
    );
  }
  if (answer.kind === 'error') return result(probe, 'refused_ok', `${what}: refused (${cut(answer.text)})${BY_ANSWERS}`);
  if (same) return result(probe, 'replay_ok', `${what}: the first answer replayed${BY_ANSWERS}`);
  return result(probe, 'double_created', `${what}: a different answer, a new result${BY_ANSWERS}`);
}

function otherArguments(evidence: ProbeEvidence): ProbeResult {
  const { added, answer, same } = second(evidence);
  if (answer === undefined || answer.kind === 'none') return inconclusive('P2', 'the second call got no answer');
  if (answer.kind === 'error')
    return added !== null && added >= 1
      ? result('P2', 'silent_new_result', `refused (${cut(answer.text)}) yet ${added} more effect(s)`)
      : result('P2', 'refused_ok', `refused: ${cut(answer.text)}`);
  if (added !== null) {
    if (added >= 1) return result('P2', 'silent_new_result', `answered as new, ${added} more effect(s) under the reused key`);
    const listings = evidence.listings;
    if (listings !== null && listings.length >= 3 && listings[2]!.hash !== listings[1]!.hash)
      return result(
        'P2',
        'overwrote_first',
        'no further effect, but what the count tool lists changed: the first was overwritten',
      );
    if (same)
      return result(
        'P2',
        'replay_ok',
        'the first answer replayed for other arguments, nothing changed (the draft SHOULDs an error)',
      );
    return result('P2', 'silent_new_result', 'a new answer for other arguments, but nothing changed where the count tool looks');
  }
  if (same) return result('P2', 'replay_ok', `the first answer replayed for other arguments${BY_ANSWERS}`);
  return result('P2', 'silent_new_result', `answered as new under the reused key${BY_ANSWERS}`);
}

function concurrent(evidence: ProbeEvidence): ProbeResult {
  const [a, b] = evidence.answers;
  if (evidence.concurrent !== true)
    return inconclusive('P3', 'the first call was answered before the second was sent (lower --gap, or the server is too fast)');
  if (a === undefined || b === undefined) return inconclusive('P3', 'a call got no answer');
  if (a.kind === 'none' || b.kind === 'none')
    return inconclusive('P3', `a call got no answer: ${cut((a.kind === 'none' ? a : b).text)}`);
  if (a.kind === 'error' && b.kind === 'error') return inconclusive('P3', `the server refused both calls: ${cut(a.text)}`);
  const refused = a.kind === 'error' ? a : b.kind === 'error' ? b : null;
  const counts = evidence.counts;
  if (counts !== null) {
    const added = Math.abs(counts[counts.length - 1]! - counts[0]!);
    if (added === 0) return inconclusive('P3', 'no effect the count tool sees');
    if (added >= 2) return result('P3', 'double_created', `${added} effects from two concurrent calls with one key`);
    if (refused !== null) return result('P3', 'conflict_ok', `one effect; the other call refused: ${cut(refused.text)}`);
    return result('P3', 'wait_replay_ok', `one effect; both answered${a.text === b.text ? ' alike' : ' (differently)'}`);
  }
  if (refused !== null) return result('P3', 'conflict_ok', `one call refused: ${cut(refused.text)}${BY_ANSWERS}`);
  if (a.text === b.text) return result('P3', 'wait_replay_ok', `both answered alike${BY_ANSWERS}`);
  return result('P3', 'double_created', `two different answers${BY_ANSWERS}`);
}

function newKey(evidence: ProbeEvidence): ProbeResult {
  const { added, answer, same } = second(evidence);
  if (answer === undefined || answer.kind === 'none') return inconclusive('P4', 'the second call got no answer');
  if (added !== null) {
    if (added >= 1) return result('P4', 'new_effect_ok', `a new key made a new effect`);
    return result(
      'P4',
      'fingerprint_dedup',
      `a new key made no further effect${answer.kind === 'error' ? ` (refused: ${cut(answer.text)})` : same ? ' (the first answer replayed)' : ''}: de-duplicated by the arguments`,
    );
  }
  if (answer.kind === 'error')
    return result('P4', 'fingerprint_dedup', `a new key was refused: ${cut(answer.text)}${BY_ANSWERS}`);
  if (same) return result('P4', 'fingerprint_dedup', `a new key got the first answer${BY_ANSWERS}`);
  return result('P4', 'new_effect_ok', `a new key got a new answer${BY_ANSWERS}`);
}

function afterServerError(evidence: ProbeEvidence): ProbeResult {
  // The F5 call never reached the server: the retry is the only forwarded call.
  const [retry] = evidence.answers;
  if (retry === undefined) return inconclusive('P6', 'the retry did not reach the server');
  if (retry.kind === 'error') return inconclusive('P6', `the server refused the example: ${cut(retry.text)}`);
  if (retry.kind === 'none') return inconclusive('P6', `the retry got no answer: ${cut(retry.text)}`);
  const counts = evidence.counts;
  if (counts === null) return result('P6', 'new_effect_ok', `the retry after the 500 was answered${BY_ANSWERS}`);
  const added = Math.abs(counts[counts.length - 1]! - counts[0]!);
  if (added === 0) return inconclusive('P6', 'the retry made no effect the count tool sees');
  if (added >= 2) return result('P6', 'double_created', `${added} effects after a 500 and one retry`);
  return result('P6', 'new_effect_ok', 'one effect: the retry after the 500 made it once');
}

function hint(evidence: ProbeEvidence): ProbeResult {
  const judged = sameAgain('P8', evidence, 'no key, same arguments');
  if (judged.label === 'double_created') return { ...judged, label: 'hint_broken' };
  if (judged.label === 'replay_ok' || judged.label === 'refused_ok') return { ...judged, label: 'hint_holds' };
  return judged;
}

/** The label of one probe from what it saw. */
export function judgeProbe(probe: ProbeDefinition, evidence: ProbeEvidence): ProbeResult {
  if (probe.id === 'P6') return afterServerError(evidence);
  const failed = firstFailed(probe.id, evidence.answers, evidence.counts);
  if (failed !== null) return failed;
  switch (probe.id) {
    case 'P1':
      return sameAgain('P1', evidence, 'same key, same arguments');
    case 'P2':
      return otherArguments(evidence);
    case 'P3':
      return concurrent(evidence);
    case 'P4':
      return newKey(evidence);
    case 'P5':
      return sameAgain('P5', evidence, 'retry after a ghost write');
    case 'P7': {
      const judged = sameAgain('P7', evidence, 'key in _meta');
      return judged;
    }
    case 'P8':
      return hint(evidence);
    case 'P9':
      // The server saw the retry first (answers[0], counts[1]) and the late write second.
      return sameAgain('P9', evidence, 'a late write landing after its retry');
  }
}

/** The tool's verdict: KEEPS, BREAKS, NO_PROMISE (no key accepted and no hint), or INCONCLUSIVE (nothing judged). */
export type ToolVerdict = 'KEEPS' | 'BREAKS' | 'NO_PROMISE' | 'INCONCLUSIVE';

const JUDGED: ReadonlySet<ProbeId> = new Set(['P1', 'P2', 'P3', 'P5', 'P6', 'P8', 'P9']);

export function toolVerdict(promise: ToolPromise, results: readonly ProbeResult[]): { verdict: ToolVerdict; reason: string } {
  if (!promise.acceptsKey && !promise.hinted) return { verdict: 'NO_PROMISE', reason: 'no key field and no idempotentHint' };
  const judged = results.filter((r) => JUDGED.has(r.probe));
  const broken = judged.filter((r) => BREAKING_LABELS.has(r.label));
  if (broken.length > 0) return { verdict: 'BREAKS', reason: broken.map((r) => `${r.probe} ${r.label}`).join(', ') };
  const kept = judged.filter((r) => r.label !== 'inconclusive');
  if (kept.length === 0) return { verdict: 'INCONCLUSIVE', reason: 'no probe could be judged' };
  const open = judged.length - kept.length;
  return { verdict: 'KEEPS', reason: open === 0 ? 'every judged probe kept' : `${kept.length} kept, ${open} inconclusive` };
}

/**
 * Where the key is read (P7, reported): in the argument (P1 saw a replay or refusal), in `_meta` (P7 saw
 * one effect where P4 saw a new key make a new effect), or not at all.
 */
export function keyLocation(results: readonly ProbeResult[], keyField: string): string {
  const label = (id: ProbeId) => results.find((r) => r.probe === id)?.label;
  const p1 = label('P1');
  const p7 = label('P7');
  if (p1 === 'replay_ok' || p1 === 'refused_ok') return `the argument ${keyField}`;
  if (p7 === 'replay_ok' || p7 === 'refused_ok') {
    // Only when a new key made a new effect (P4) is P7's one effect the key's doing, not the content's.
    if (label('P4') === 'new_effect_ok') return `_meta.${keyField}`;
    return 'unknown (identical calls may be de-duplicated by their content)';
  }
  if (p1 === undefined && p7 === undefined) return 'not probed';
  if (p1 === 'inconclusive' || p7 === 'inconclusive') return 'unknown (a probe was inconclusive)';
  return 'not at all';
}
