/**
 * The journal file (`--journal`, format in `docs/journal.md`): one JSON line per event, appended with one
 * synchronous `write` each on a descriptor opened `O_APPEND`. Nothing is buffered in the process, so a
 * proxy that is killed leaves every event it had told the journal, at most the last line torn (readers
 * skip it), and every answer the agent got is in the file before the agent has it.
 *
 * Opening never follows a link: the file is created (or emptied, like the report file) with `O_NOFOLLOW`,
 * mode 600 (it may hold personal data with `--journal-payloads`); a symbolic link, a non-regular file, or
 * another user's file in a world-writable sticky folder (`/tmp`) is refused.
 *
 * A write that fails (full disk) is told once on stderr and the journal stops there: the file is then
 * a true prefix of the run, as after a kill.
 */
import { writeSync } from 'node:fs';
import type { CallEvent } from '../../ports/call-events.port.js';
import type { ForwardedRequestEvent } from '../../ports/journal.port.js';
import { redact } from '../../domain/text/redaction.js';
import { errorText } from './file-safety.js';
import { closePrivateLineFile, openPrivateLineFile } from './private-line-file.js';
import {
  JOURNAL_EFFECT_KEYS,
  JOURNAL_VERSION,
  type Journal,
  type JournalEffects,
  type JournalEffectsSnapshot,
  type JournalSession,
  type JournalSessionEnd,
  type JournalSessionInfo,
} from '../../ports/journal.port.js';

export interface FileJournalOptions {
  /** Write `arguments` and `result` of calls (`--journal-payloads`); off by default. */
  payloads: boolean;
  /**
   * `--redact FIELD,…`: in `arguments` and `result`, the value of every field with one of these names, at
   * any depth, is replaced by `[REDACTED]` before it is written, as in the recording; the header lists them.
   */
  redact?: readonly string[];
  harnessVersion: string;
  /** The upstream is a recording (`--upstream-replay`): the header says `"replayed":true`. */
  replayed?: boolean;
  /** Milliseconds since the epoch (the header and session lines). */
  now: () => number;
  /** Told once when a write fails. */
  notice: (line: string) => void;
  /** The proxy's user id (default `process.getuid()`). */
  uid?: number;
  /**
   * Files the journal must not be (the report file, the HTML report), compared by identity with links
   * followed: a report named through a link to the journal's path would otherwise be emptied by the
   * journal, then the journal replaced by the report.
   */
  distinctFrom?: readonly string[];
}

/** Refuses what must never be opened; one-line Errors. */
export class FileJournal implements Journal {
  private broken = false;
  private readonly fields: ReadonlySet<string>;

  private constructor(
    readonly path: string,
    private fd: number | null,
    private readonly options: FileJournalOptions,
  ) {
    this.fields = new Set(options.redact ?? []);
  }

  /** Opens (creates or empties) the journal and writes its header line; rejects with a one-line Error. */
  static async open(path: string, options: FileJournalOptions): Promise<FileJournal> {
    const { path: absolute, fd } = await openPrivateLineFile(path, {
      what: 'journal',
      uid: 'uid' in options ? options.uid : process.getuid?.(),
      distinctFrom: options.distinctFrom ?? [],
      notice: options.notice,
    });
    const journal = new FileJournal(absolute, fd, options);
    journal.append(
      JSON.stringify({
        v: JOURNAL_VERSION,
        event: 'journal',
        at: options.now(),
        harnessVersion: options.harnessVersion,
        payloads: options.payloads,
        ...(journal.fields.size > 0 ? { redacted: [...journal.fields] } : {}),
        ...(options.replayed === true ? { replayed: true } : {}),
      }),
    );
    if (journal.broken) throw new Error(`journal file cannot be written: ${path}`);
    return journal;
  }

  session(sessionId: string, info: JournalSessionInfo): JournalSession {
    const id = JSON.stringify(sessionId);
    this.append(
      `{"v":${JOURNAL_VERSION},"event":"opened","at":${this.options.now()},"session":${id},"scenario":${JSON.stringify(info.scenario)}${info.report === undefined ? '' : `,"report":${JSON.stringify(info.report)}`}}`,
    );
    return {
      callEvent: (event) => this.append(this.callLine(id, event)),
      ended: (end: JournalSessionEnd) =>
        this.append(
          `{"v":${JOURNAL_VERSION},"event":"ended","at":${this.options.now()},"session":${id},"verdict":${JSON.stringify(end.verdict)},"score":${JSON.stringify(end.score)}${end.reportError === undefined ? '' : `,"reportError":${JSON.stringify(end.reportError)}`}}`,
        ),
      request: (event) => this.append(this.requestLine(id, event)),
      // R-15: the effects lines, twice and once per session with a view: off the hot path, whole objects.
      effectsSnapshot: (snapshot: JournalEffectsSnapshot) =>
        this.append(
          `{"v":${JOURNAL_VERSION},"event":"snapshot","at":${this.options.now()},"session":${id},${JSON.stringify(snapshot).slice(1)}`,
        ),
      effects: (effects: JournalEffects) => this.append(this.effectsLine(id, effects)),
    };
  }

  /** Closes the file (the proxy's end). */
  close(): void {
    if (this.fd === null) return;
    closePrivateLineFile(this.fd);
    this.fd = null;
  }

  /** The `effects` line: totals always; the reason and the keys (the backend's values) as payloads only. */
  private effectsLine(session: string, e: JournalEffects): string {
    const sum = (field: 'created' | 'removed' | 'changed'): number => e.keys.reduce((n, k) => n + k[field], 0);
    const line = {
      verdict: e.verdict,
      explanation: e.explanation,
      keyCount: e.keys.length,
      created: sum('created'),
      removed: sum('removed'),
      changed: sum('changed'),
      ...(this.options.payloads
        ? {
            // The reason is text naming keys by their values: kept only when no key field is redacted.
            ...(e.keyFields.some((field) => this.fields.has(field)) ? {} : { reason: e.reason }),
            keys: e.keys
              .slice(0, JOURNAL_EFFECT_KEYS)
              .map((k) => ({ ...k, key: redact(k.key, this.fields) as Record<string, unknown> })),
          }
        : {}),
    };
    return `{"v":${JOURNAL_VERSION},"event":"effects","at":${this.options.now()},"session":${session},${payload(line).slice(1)}`;
  }

  /** One call line; built by hand from the fixed fields (the hot path), the payloads only when asked. */
  private callLine(session: string, e: CallEvent): string {
    let line =
      `{"v":${JOURNAL_VERSION},"event":"${e.step}","at":${e.at},"session":${session},"attempt":${e.attempt},"tool":${JSON.stringify(e.tool)}` +
      `,"class":"${e.callClass}","operation":${e.operation === null ? 'null' : e.operation},"fault":${e.fault === null ? 'null' : `"${e.fault}"`}`;
    if (e.upstream !== undefined) line += `,"upstream":${e.upstream === null ? 'null' : `"${e.upstream}"`}`;
    if (e.reason !== undefined) line += `,"reason":"${e.reason}"`;
    if (e.replaced !== undefined) line += `,"replaced":${e.replaced}`;
    if (e.told !== undefined) line += `,"told":"${e.told}"`;
    if (e.source !== undefined) line += `,"source":"${e.source}"`;
    if (e.besideLate !== undefined) line += `,"besideLate":${e.besideLate}`;
    if (e.execution !== undefined) line += `,"execution":${e.execution}`;
    if (e.asked !== undefined) line += `,"asked":${JSON.stringify({ method: e.asked.method, answer: e.asked.answer })}`;
    if (this.options.payloads) {
      if (e.step === 'received') line += `,"arguments":${payload(redact(e.arguments ?? null, this.fields))}`;
      if (e.result !== undefined) line += `,"result":${payload(redact(e.result, this.fields))}`;
    }
    return `${line}}`;
  }

  /** R-17: one forwarded request that is not a tool call; what it asked and got only with payloads. */
  private requestLine(session: string, e: ForwardedRequestEvent): string {
    let line = `{"v":${JOURNAL_VERSION},"event":"request","at":${e.at},"session":${session},"method":${JSON.stringify(e.method)}`;
    if (e.uri !== undefined) line += `,"uri":${JSON.stringify(e.uri)}`;
    if (e.name !== undefined) line += `,"name":${JSON.stringify(e.name)}`;
    line += `,"outcome":"${e.outcome}"`;
    if (e.code !== undefined) line += `,"code":${e.code}`;
    line += `,"durationMs":${e.durationMs}`;
    if (this.options.payloads) {
      line += `,"params":${payload(redact(e.params, this.fields))}`;
      if (e.answer !== undefined) {
        line +=
          'result' in e.answer
            ? `,"result":${payload(redact(e.answer.result, this.fields))}`
            : `,"error":${payload(redact(e.answer.error, this.fields))}`;
      }
    }
    return `${line}}`;
  }

  private append(line: string): void {
    if (this.broken || this.fd === null) return;
    try {
      const bytes = Buffer.from(`${line}\n`);
      for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done);
    } catch (error) {
      this.broken = true;
      this.options.notice(`the journal could not be written (${errorText(error)}); it stops here: ${this.path}`);
    }
  }
}

/** A payload as JSON; a value JSON cannot hold (nested too deeply) is replaced by a note, never dropped silently. */
function payload(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (error) {
    return JSON.stringify({ unserialisable: errorText(error) });
  }
}
