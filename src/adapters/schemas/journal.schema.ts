/**
 * One line of the journal (`--journal FILE`, `docs/journal.md`), written by `src/adapters/files/file-journal.ts`.
 * The journal's version is each line's `v` (`JOURNAL_VERSION`), not a `schemaVersion`. Checked against the
 * port's `JournalRecord` at compile time; the reader (`report-files/journal-reader.ts`) parses lines with it.
 */
import { z } from 'zod';
import { JOURNAL_VERSION, type JournalRecord } from '../../ports/journal.port.js';
import { sameShape } from './common.js';

const v = z.literal(JOURNAL_VERSION).describe('The journal format version of this line.');
const at = z.number().describe('Clock time, milliseconds since the epoch.');
const positive = z.number().int().positive();

const header = z.object({
  v,
  event: z.literal('journal'),
  at,
  harnessVersion: z.string(),
  payloads: z.boolean().describe('Call lines carry arguments and result (--journal-payloads).'),
  redacted: z
    .array(z.string())
    .optional()
    .describe(
      '--redact: the fields whose values were replaced by "[REDACTED]", at any depth, in arguments and result (as in the recording). Absent when none.',
    ),
  replayed: z
    .literal(true)
    .optional()
    .describe(
      'The upstream was a recording (--upstream-replay, docs/replay.md): the sessions repeat a recorded sample. Absent when live.',
    ),
});
const opened = z.object({
  v,
  event: z.literal('opened'),
  at,
  session: z.string(),
  scenario: z.string(),
  report: z.string().optional(),
});
const ended = z.object({
  v,
  event: z.literal('ended'),
  at,
  session: z.string(),
  verdict: z.string(),
  score: z.number().nullable(),
});
const viewFields = {
  v,
  event: z.literal('snapshot'),
  at,
  session: z.string(),
  phase: z.enum(['before', 'after']).describe('R-15: the snapshot before the first call, or after the session ended.'),
  view: z.string().describe('The effects view in words: the read tool, or the command.'),
  keyFields: z.array(z.string()).describe('The effect key (--effect-key).'),
};
const snapshot = z.union([
  z.object({
    ...viewFields,
    ok: z.literal(true),
    records: z.number().int().nonnegative().describe('Records the view listed.'),
    keys: z.number().int().nonnegative().describe('Distinct effect keys among them.'),
    hash: z.string().describe("The listing's hash, as the report's effects.snapshots."),
  }),
  z.object({ ...viewFields, ok: z.literal(false), reason: z.string().describe('Why there is no snapshot.') }),
]);
const effectKey = z.object({
  key: z.record(z.string(), z.unknown()),
  before: z.number().int().nonnegative(),
  after: z.number().int().nonnegative(),
  created: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
  changed: z.number().int().nonnegative(),
  expected: z.array(z.string()),
});
const effects = z.object({
  v,
  event: z.literal('effects'),
  at,
  session: z.string(),
  verdict: z.string().describe("R-15: the effects verdict, as the report's effects.verdict."),
  explanation: z.string().nullable(),
  keyCount: z.number().int().nonnegative().describe("Keys the report's effects.keys holds."),
  created: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
  changed: z.number().int().nonnegative(),
  reason: z
    .string()
    .optional()
    .describe("--journal-payloads on, no key field redacted: the verdict's reason (it names keys by their values)."),
  keys: z.array(effectKey).optional().describe('--journal-payloads on: the first 100 keys, key values redacted by --redact.'),
});
const call = z.object({
  v,
  event: z.enum(['received', 'injected', 'forwarded', 'asked', 'answered', 'delivered']),
  at,
  session: z.string(),
  attempt: positive,
  tool: z.string(),
  class: z.enum(['read', 'write', 'unclassified']),
  operation: positive.nullable().describe("The report's operations[].id; null for reads and unclassified calls."),
  fault: z.string().nullable(),
  upstream: z.string().nullable().optional(),
  reason: z.string().optional(),
  replaced: z.boolean().optional(),
  told: z.string().optional(),
  source: z
    .enum(['model', 'user', 'runtime', 'unknown'])
    .optional()
    .describe('`received` of a repeated write attempt: who sent it again (R-14.1).'),
  besideLate: positive
    .optional()
    .describe(
      '`received` (F6): the write arrived while the late write of its operation (this attempt) was still waiting to land.',
    ),
  execution: positive
    .optional()
    .describe(
      '`answered` (F6) of a late write or a write beside one that executed: its execution of the operation at the upstream, 1, 2, … in landing order.',
    ),
  asked: z
    .object({ method: z.string(), answer: z.string() })
    .optional()
    .describe('`asked` (R-17): the request the upstream sent the agent during the call, and how the agent answered.'),
  arguments: z.unknown().optional(),
  result: z.unknown().optional(),
});

const request = z.object({
  v,
  event: z.literal('request'),
  at,
  session: z.string(),
  method: z.string().describe('R-17: a forwarded request that is not a tool call (resources/read, prompts/get, …).'),
  uri: z.string().optional().describe('The resource it names (resources/read, resources/subscribe, …).'),
  name: z.string().optional().describe('The prompt it names (prompts/get, a completion of a prompt argument).'),
  outcome: z.enum(['result', 'error', 'cancelled']),
  code: z.number().int().optional().describe('outcome "error": the JSON-RPC error code the agent got.'),
  durationMs: z.number().nonnegative().describe('Milliseconds from receipt to the answer.'),
  params: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});

export const journalLineSchema = z
  .union([header, opened, ended, snapshot, effects, call, request])
  .meta({ title: 'Journal line', description: 'One JSON line of a --journal file (docs/journal.md).' });

/** The reader's view of a line: the port's record types, with the closed vocabularies as plain strings. */
type ReadRecord = z.output<typeof journalLineSchema>;
type Loosened<T> = T extends { event: infer E }
  ? Omit<T, 'v' | 'fault' | 'upstream' | 'reason' | 'told' | 'arguments' | 'result'> & { event: E }
  : never;
// Every record the writer's types allow is a line the schema accepts (closed vocabularies aside).
sameShape<[Loosened<JournalRecord>] extends [Loosened<ReadRecord>] ? true : false>();

/** The record a line holds, or null when it is not a journal line of this version. */
export function journalRecordOf(value: unknown): JournalRecord | null {
  const parsed = journalLineSchema.safeParse(value);
  return parsed.success ? (value as JournalRecord) : null;
}
