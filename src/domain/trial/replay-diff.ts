/**
 * `replay` (docs/replay.md, "Replaying a run, a regression suite"): what is compared between a recorded run
 * and the same run replayed by the current harness — its verdict, the executions of each operation, who
 * sent each repeated write, and the honesty class — and the differences, field by field.
 *
 * Pure: both sides are read from run files (`run.json`) as plain JSON.
 */

/** The facts of a run that a replay must give again. */
export interface ComparedRun {
  verdict: string;
  /** Why (the run's verdictReason): shown beside a verdict that differs, not compared on its own. */
  reason: string;
  /** Each write operation of the report, by id: its tool and how many times it executed. */
  operations: ReadonlyArray<{ id: number; tool: string; executions: number }>;
  /** Each repeated write attempt: its operation, attempt and source. */
  attribution: ReadonlyArray<{ operation: number; attempt: number; source: string }>;
  /** The honesty class, or NOT_MEASURED. */
  honesty: string;
}

/** One field that differs: its name, the recorded value and the value now ("none" when absent). */
export interface RunDifference {
  field: string;
  recorded: string;
  now: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown, fallback: string): string => (typeof value === 'string' ? value : fallback);

/** The compared facts of a run file (fields it lacks count as none). */
export function comparedRunOf(runFile: Readonly<Record<string, unknown>>): ComparedRun {
  const report = isObject(runFile['report']) && isObject(runFile['report']['report']) ? runFile['report']['report'] : {};
  const operations = list(report['operations'])
    .filter(isObject)
    .map((op) => ({
      id: typeof op['id'] === 'number' ? op['id'] : 0,
      tool: text(op['tool'], ''),
      executions: typeof op['executions'] === 'number' ? op['executions'] : 0,
    }));
  const attribution = list(runFile['attribution'])
    .filter(isObject)
    .map((a) => ({
      operation: typeof a['operation'] === 'number' ? a['operation'] : 0,
      attempt: typeof a['attempt'] === 'number' ? a['attempt'] : 0,
      source: text(a['source'], 'unknown'),
    }));
  const honesty = runFile['honesty'];
  return {
    verdict: text(runFile['verdict'], 'none'),
    reason: text(runFile['verdictReason'], ''),
    operations,
    attribution,
    honesty: isObject(honesty) ? text(honesty['class'], 'NOT_MEASURED') : text(honesty, 'NOT_MEASURED'),
  };
}

const NONE = 'none';

/** Every field of `now` that differs from `recorded`, in a stable order: verdict, executions, attribution, honesty. */
export function compareRuns(recorded: ComparedRun, now: ComparedRun): RunDifference[] {
  const differences: RunDifference[] = [];
  const withReason = (run: ComparedRun) => (run.reason === '' ? run.verdict : `${run.verdict} (${run.reason})`);
  if (recorded.verdict !== now.verdict)
    differences.push({ field: 'verdict', recorded: withReason(recorded), now: withReason(now) });
  const operationKey = (op: { id: number; tool: string }) => `operation ${op.id} (${op.tool})`;
  const executions = (ops: ComparedRun['operations']) => new Map(ops.map((op) => [operationKey(op), String(op.executions)]));
  differences.push(
    ...mapDifferences(executions(recorded.operations), executions(now.operations), (key) => `executions of ${key}`),
  );
  const sources = (attribution: ComparedRun['attribution']) =>
    new Map(attribution.map((a) => [`operation ${a.operation} attempt ${a.attempt}`, a.source]));
  differences.push(
    ...mapDifferences(sources(recorded.attribution), sources(now.attribution), (key) => `source of the repeat, ${key}`),
  );
  if (recorded.honesty !== now.honesty) differences.push({ field: 'honesty', recorded: recorded.honesty, now: now.honesty });
  return differences;
}

/** Keys in recorded order, then keys only `now` has. */
function mapDifferences(
  recorded: ReadonlyMap<string, string>,
  now: ReadonlyMap<string, string>,
  field: (key: string) => string,
): RunDifference[] {
  const out: RunDifference[] = [];
  for (const [key, value] of recorded) {
    const current = now.get(key) ?? NONE;
    if (current !== value) out.push({ field: field(key), recorded: value, now: current });
  }
  for (const [key, value] of now) if (!recorded.has(key)) out.push({ field: field(key), recorded: NONE, now: value });
  return out;
}

/** `field: recorded → now`, one per line. */
export function formatDifferences(differences: readonly RunDifference[]): string[] {
  return differences.map((d) => `${d.field}: ${d.recorded} → ${d.now}`);
}
