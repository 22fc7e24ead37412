/**
 * The journal (`--journal FILE`, format in `docs/journal.md`): one JSON line per step of every call of
 * every agent session, appended as it happens. The write side is a {@link Journal} handing out one
 * {@link JournalSession} (a {@link CallEventSink}) per agent session; the read side is the
 * {@link JournalRecord} lines as the reader returns them, already checked.
 */
import type { CallClass } from '../domain/attempt.js';
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

export interface JournalSession extends CallEventSink {
  ended(end: JournalSessionEnd): void;
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

export type JournalRecord = JournalHeaderRecord | JournalOpenedRecord | JournalEndedRecord | JournalCallRecord;

/** A journal read back: the lines that are complete and known, and what was skipped. */
export interface JournalContents {
  records: JournalRecord[];
  /** The last line had no line feed (the writer was killed while writing it): skipped. */
  tornLastLine: boolean;
  /** Complete lines that are not journal lines of this version (foreign or damaged): skipped, counted. */
  skipped: number;
}
