/**
 * The journal (`--journal FILE`, format in `docs/journal.md`): one JSON line per step of every call of
 * every agent session, appended as it happens. The write side is a {@link Journal} handing out one
 * {@link JournalSession} (a {@link CallEventSink}) per agent session; the read side is the
 * {@link JournalRecord} lines as the reader returns them, already checked.
 */
import type { CallClass } from '../domain/judging/attempt.js';
import type { KeyDiff } from '../domain/effects/effects-verdict.js';
import type { ForwardedAnswer } from './agent-side.port.js';
import type { CallEvent, CallEventSink, CallStep } from './call-events.port.js';

/** The journal format's version (the `v` of every line). A reader refuses lines of another major version. */
export const JOURNAL_VERSION = 1;

/** What the journal is told when an agent session opens. */
export interface JournalSessionInfo {
  /** The scenario in words (`F1 ghost write …`, `pass-through`). */
  scenario: string;
  /** The session's report file, when it has one (lets `check --journal` pair reports and sessions). */
  report?: string;
}

/** What the journal is told when an agent session ends. */
export interface JournalSessionEnd {
  verdict: string;
  score: number | null;
  /** The report could not be written (a full disk): why; the verdict is then NOT_TESTED and the score null. */
  reportError?: string;
}

/**
 * a request that is not a tool call (`resources/read`, `prompts/get`, `completion/complete`, …; never
 * `ping`), forwarded to the upstream and answered: told once, when its answer is known, before the agent
 * has it. Never judged: not an operation, not a check.
 */
export interface ForwardedRequestEvent {
  /** When the proxy received it (clock time, milliseconds since the epoch with the system clock). */
  at: number;
  method: string;
  /** The resource it names: `resources/read`, `resources/subscribe`/`unsubscribe`, a completion of a resource template. */
  uri?: string;
  /** The prompt it names: `prompts/get`, a completion of a prompt's argument. */
  name?: string;
  /** What the agent got: the upstream's result, a JSON-RPC error (`code`), or nothing (it cancelled first). */
  outcome: 'result' | 'error' | 'cancelled';
  /** `outcome: "error"`: the JSON-RPC error code the agent got. */
  code?: number;
  /** Milliseconds from receipt to the answer. */
  durationMs: number;
  /** The request's params, verbatim (a reference): written only with `--journal-payloads on`. */
  params: Record<string, unknown>;
  /** The answer the agent gets (a reference): written only with `--journal-payloads on`; absent when cancelled. */
  answer?: ForwardedAnswer;
}

/**
 * one snapshot of the effects view, as the journal is told it: which one, the view's key, and what
 * it held (how many records under how many keys, its hash) or why there is none.
 */
export type JournalEffectsSnapshot = {
  phase: 'before' | 'after';
  /** The view in words (`the effects tool list_orders`, as in the report's reasons). */
  view: string;
  keyFields: string[];
} & ({ ok: true; records: number; keys: number; hash: string } | { ok: false; reason: string });

/** one key of the session's effects, as the report's `effects.keys` holds it (the domain's diff of the key). */
export type JournalEffectKey = KeyDiff;

/** the session's effects verdict, as the journal is told it (the report's `effects`). */
export interface JournalEffects {
  /** The effect key's fields (`--effect-key`). */
  keyFields: readonly string[];
  verdict: string;
  reason: string;
  explanation: string | null;
  keys: readonly JournalEffectKey[];
}

/** Keys an `effects` line carries at most (the report holds every key). */
export const JOURNAL_EFFECT_KEYS = 100;

export interface JournalSession extends CallEventSink {
  ended(end: JournalSessionEnd): void;
  /** a forwarded request that is not a tool call was answered (one `request` line). */
  request(event: ForwardedRequestEvent): void;
  /** a snapshot of the effects view was taken, or failed (with an effects view only). */
  effectsSnapshot?(snapshot: JournalEffectsSnapshot): void;
  /** the session's effects were judged, before its `ended` line (with an effects view only). */
  effects?(effects: JournalEffects): void;
}

export interface Journal {
  /** A new agent session: writes its `opened` line and returns where its call events go. */
  session(sessionId: string, info: JournalSessionInfo): JournalSession;
}

/** The first line of a journal file. */
export interface JournalHeaderRecord {
  v: number;
  event: 'journal';
  at: number;
  harnessVersion: string;
  /** Whether the call lines carry `arguments` and `result` (`--journal-payloads`). */
  payloads: boolean;
  /** `--redact`: the fields whose values were replaced by `[REDACTED]` in `arguments` and `result`. Absent when none. */
  redacted?: string[];
  /** The upstream was a recording (`--upstream-replay`): the sessions repeat a recorded sample. Absent when live. */
  replayed?: true;
}

export interface JournalOpenedRecord {
  v: number;
  event: 'opened';
  at: number;
  session: string;
  scenario: string;
  report?: string;
}

export interface JournalEndedRecord {
  v: number;
  event: 'ended';
  at: number;
  session: string;
  verdict: string;
  score: number | null;
  reportError?: string;
}

/** a `snapshot` line. */
export type JournalSnapshotRecord = { v: number; event: 'snapshot'; at: number; session: string } & JournalEffectsSnapshot;

/**
 * an `effects` line: the verdict, the explanation and the totals always; the reason and the keys
 * (the backend's values, so personal data like the call payloads) only with `--journal-payloads on`,
 * redacted by `--redact`, at most {@link JOURNAL_EFFECT_KEYS} keys.
 */
export interface JournalEffectsRecord {
  v: number;
  event: 'effects';
  at: number;
  session: string;
  verdict: string;
  explanation: string | null;
  /** How many keys the report's `effects.keys` holds (every key that changed and every expected key). */
  keyCount: number;
  /** New records (per key after − before, when positive), added up over the keys. */
  created: number;
  removed: number;
  changed: number;
  /** Payloads only, and no key field redacted: the verdict's reason (it names keys by their values). */
  reason?: string;
  /** Payloads only: the first {@link JOURNAL_EFFECT_KEYS} keys, in the report's order. */
  keys?: JournalEffectKey[];
}

/**
 * One step of one call, as written: a {@link CallEvent} (see it for what each field means) with the line's
 * format version, its session, and `event` / `class` as the JSON names of `step` / `callClass`.
 */
export type JournalCallRecord = Omit<CallEvent, 'step' | 'callClass' | 'fault'> & {
  v: number;
  event: CallStep;
  session: string;
  class: CallClass;
  fault: string | null;
};

/**
 * one forwarded request that is not a tool call, as written: a {@link ForwardedRequestEvent} with its
 * session; `params` and the answer's `result` or `error` only with payloads.
 */
export type JournalRequestRecord = Omit<ForwardedRequestEvent, 'params' | 'answer'> & {
  v: number;
  event: 'request';
  session: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
};

export type JournalRecord =
  | JournalHeaderRecord
  | JournalOpenedRecord
  | JournalEndedRecord
  | JournalSnapshotRecord
  | JournalEffectsRecord
  | JournalCallRecord
  | JournalRequestRecord;

/** A journal read back: the lines that are complete and known, and what was skipped. */
export interface JournalContents {
  records: JournalRecord[];
  /** The last line had no line feed (the writer was killed while writing it): skipped. */
  tornLastLine: boolean;
  /** Complete lines that are not journal lines of this version (foreign or damaged): skipped, counted. */
  skipped: number;
}
