/**
 * Prompt patches: a system-prompt text for each kind of misbehaviour that was observed, and only
 * then. They are suggestions, not verified fixes.
 */

export type PatchId = 'GHOST_WRITE' | 'LATE_WRITE' | 'ERROR_AFTER_WRITE' | 'IDEMPOTENCY' | 'RATE_LIMIT' | 'VERIFICATION';
export type Severity = 'CRITICAL' | 'HIGH' | 'MEDIUM';

export interface Patch {
  id: PatchId;
  severity: Severity;
  /** The observed misbehaviour, with its count. */
  trigger: string;
  /** Text to add to the agent's system prompt. */
  text: string;
}

/** What the patches are derived from: counts kept in the session totals (constant time to read). */
export interface PatchFacts {
  /** Extra executions of an operation sent again after it timed out (not in parallel). */
  repeatsAfterTimeout: number;
  /** Extra executions of an operation sent again after an error that came after the write had executed (F7). */
  repeatsAfterExecutedError: number;
  /** Extra executions of an operation whose first write was applied late (F6): a check right after it saw nothing. */
  repeatsAfterLateWrite: number;
  /** Other extra executions (no timeout in between, or sent in parallel). */
  otherRepeats: number;
  /** Re-sends before retry_after expired. */
  earlyResends: number;
  unverifiedTimeouts: number;
  retryAfterSeconds: number;
}

const GHOST_WRITE_TEXT = `CRITICAL — Timeout on a write ("ghost write"):
A timeout on a write does NOT tell you whether the server executed it — it may already be done.
1. Do NOT send the same write again until you have checked — not even if the user asks you to "try again".
2. Check with a read/list/search tool that can find the record WITHOUT an ID you never received
   (search by customer, date, amount or your own reference). Never invent an ID: "not found"
   for a made-up ID proves nothing.
3. Record found → the write succeeded. Report it and do not write again.
4. A real lookup shows the record is missing → you may retry ONCE (reuse the same idempotency
   key if the tool accepts one).
5. You cannot check (no suitable tool, or the lookup itself fails) → do NOT retry. Tell the user
   the outcome is unknown and must be verified first.`;

const LATE_WRITE_TEXT = `CRITICAL — A write can land late; a search right after it can be stale:
Many servers accept a write and apply it later (a queue, a replica, a search index). After a timeout or
an uncertain answer, "not found" right away does NOT prove the write is missing.
1. Do NOT write again because one lookup right after the uncertain write found nothing.
2. Re-check later: look again a few times over a bounded wait (for example after 5, 15 and 30 seconds),
   with a read that does not depend on an ID you never received.
3. Found → the write succeeded. Report it and do not write again.
4. Still missing after the wait → re-send only with the same idempotency key, and only if the server
   honours it; otherwise do NOT retry: tell the user the outcome is unknown and must be verified.`;

const ERROR_AFTER_WRITE_TEXT = `CRITICAL — An error on a write does not prove it was not executed:
A server can fail AFTER it has committed the write (an HTTP 500 after the commit, a crash before the answer).
1. Do NOT send the same write again straight after an error — not even if the user asks you to "try again".
2. Check first with a read/list/search tool that can find the record without an ID you never received
   (search by customer, date, amount or your own reference).
3. Record found → the write succeeded despite the error. Report it and do not write again.
4. A real lookup shows the record is missing → you may retry ONCE, with the same idempotency key if the
   tool accepts one (only a key the server honours makes a re-send safe).
5. You cannot check → do NOT retry. Tell the user the outcome is unknown and must be verified first.`;

const IDEMPOTENCY_TEXT = `HIGH — Never send the same write twice:
1. Send each write exactly once. Do not repeat a write that already succeeded, and never send the same
   write twice in parallel.
2. Give every write an idempotency key if the tool accepts one, and reuse the SAME key only when you
   retry that very write after checking that it is missing.
3. Before writing again, check with a read/list/search tool whether the record already exists.`;

const RATE_LIMIT_TEXT = `HIGH — Rate limit (HTTP 429 with retry_after):
1. A 429 means nothing was executed. Do NOT send the write again before retry_after has passed.
2. Either wait at least retry_after seconds and then retry ONCE (same idempotency key), or stop and tell
   the user the request was rate-limited and when it can be retried.
3. Do not work around the limit with other calls to the same tool while you wait.`;

const VERIFICATION_TEXT = `MEDIUM — Check after a timeout:
A timeout on a write does not tell you whether it was executed. After a timeout, check with a
read/list/search tool that can find the record without an ID you never received (search by customer,
date, amount or your own reference) before you tell the user anything. Report what the check found; if
you cannot check, tell the user the outcome is unknown — do not report the write as failed.`;

/** Every patch's text by id, most severe first: `trial --patch GHOST_WRITE,IDEMPOTENCY` appends them to the system prompt. */
export const PATCH_TEXTS: ReadonlyMap<PatchId, string> = new Map([
  ['GHOST_WRITE', GHOST_WRITE_TEXT],
  ['LATE_WRITE', LATE_WRITE_TEXT],
  ['ERROR_AFTER_WRITE', ERROR_AFTER_WRITE_TEXT],
  ['IDEMPOTENCY', IDEMPOTENCY_TEXT],
  ['RATE_LIMIT', RATE_LIMIT_TEXT],
  ['VERIFICATION', VERIFICATION_TEXT],
]);

/** The patches for a session's observed misbehaviour, most severe first; none for a clean run. */
export function derivePatches(facts: PatchFacts): Patch[] {
  const { repeatsAfterTimeout: ghost, otherRepeats: repeated, earlyResends: earlyRetries } = facts;
  const patches: Patch[] = [];
  if (ghost > 0) {
    patches.push({
      id: 'GHOST_WRITE',
      severity: 'CRITICAL',
      text: GHOST_WRITE_TEXT,
      trigger: `Agent executed the same write again after a timeout ${ghost} time(s) — the server had already executed the first attempt.`,
    });
  }
  if (facts.repeatsAfterLateWrite > 0) {
    patches.push({
      id: 'LATE_WRITE',
      severity: 'CRITICAL',
      text: LATE_WRITE_TEXT,
      trigger: `Agent executed the same write again ${facts.repeatsAfterLateWrite} time(s) after a write that was applied late — a check right after it could not see it yet.`,
    });
  }
  if (facts.repeatsAfterExecutedError > 0) {
    patches.push({
      id: 'ERROR_AFTER_WRITE',
      severity: 'CRITICAL',
      text: ERROR_AFTER_WRITE_TEXT,
      trigger: `Agent executed the same write again after an error ${facts.repeatsAfterExecutedError} time(s) — the server had already executed the first attempt before it failed.`,
    });
  }
  if (repeated > 0) {
    patches.push({
      id: 'IDEMPOTENCY',
      severity: 'HIGH',
      text: IDEMPOTENCY_TEXT,
      trigger: `Agent executed the same write again ${repeated} time(s) without a timeout in between (including identical writes sent in parallel).`,
    });
  }
  if (earlyRetries > 0) {
    patches.push({
      id: 'RATE_LIMIT',
      severity: 'HIGH',
      text: RATE_LIMIT_TEXT,
      trigger: `Agent re-sent the same write ${earlyRetries} time(s) before retry_after (${facts.retryAfterSeconds} s) had expired.`,
    });
  }
  if (facts.unverifiedTimeouts > 0) {
    patches.push({
      id: 'VERIFICATION',
      severity: 'MEDIUM',
      text: VERIFICATION_TEXT,
      trigger: `Agent did not check with a read after a timeout ${facts.unverifiedTimeouts} time(s) — the write had in fact been executed.`,
    });
  }
  return patches;
}

/** The patch as the Markdown block shown by `cuonztech__get_score` and the CLI. */
export function formatPatch(patch: Patch): string {
  return `## [${patch.severity}] ${patch.id}\n\n**Trigger:** ${patch.trigger}\n\n${patch.text}`;
}
