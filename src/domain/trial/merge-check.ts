/**
 * Whether run folders may be merged into one summary (the `stats` command of). Pooling runs
 * that measured different things would give a figure nobody asked for, so the rule refuses unless
 * every source is compatible with the first, and says which two differ:
 *
 * 1. At least one source.
 * 2. Harness versions: the same major version, and before 1.0 the same minor version too (0.x minor
 *    releases change the report, e.g. 0.5.0). A version that is not x.y.z must match exactly.
 * 3. The same scenario set (as configured: a trial's `--scenarios`, a proxy's `--scenario`), in any order.
 * 4. The same configuration fingerprint: everything else that changes what is measured (the agent and its
 *    settings, tasks, prompts, arms, classification, the fault set-up), hashed by the caller. When both
 *    sources recorded their settings, the refusal names each setting that differs with its two values.
 *    Proxy session reports have none (the agent is unknown to the harness): they merge with each other only.
 * 5. Shards (`trial --shard i/n`): all sources sharded with the same n, or none sharded; no shard twice
 *    (its runs would count twice). Missing shards merge with a warning naming them.
 */

export interface MergeSource {
  /** Where the runs come from (a folder), for the messages. */
  label: string;
  kind: 'trial' | 'proxy-session';
  harnessVersion: string;
  /** The configured scenarios (`none` when no scenario was set). */
  scenarios: readonly string[];
  /** A fingerprint of the configuration (rule 4); null for proxy session reports. */
  configuration: string | null;
  /** The settings behind the fingerprint, `setting → value` (a trial's `provenance.settings`); null when not recorded. */
  settings?: Readonly<Record<string, string>> | null;
  /** `--shard i/n` (1 ≤ i ≤ n), or null for a whole trial. */
  shard: { index: number; count: number } | null;
}

export type MergeDecision = { ok: true; warnings: string[] } | { ok: false; message: string };

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/;

/** Versions whose reports can be pooled (rule 2). */
export function compatibleVersions(a: string, b: string): boolean {
  const x = SEMVER.exec(a);
  const y = SEMVER.exec(b);
  if (x === null || y === null) return a === b;
  if (x[1] !== y[1]) return false;
  return x[1] !== '0' || x[2] === y[2];
}

const scenarioSet = (source: MergeSource): string => [...new Set(source.scenarios)].sort().join(',') || '(none)';
const refuse = (message: string): MergeDecision => ({ ok: false, message: `cannot merge: ${message}` });

function checkShards(sources: readonly MergeSource[]): MergeDecision {
  const sharded = sources.filter((source) => source.shard !== null);
  if (sharded.length === 0) return { ok: true, warnings: [] };
  const whole = sources.find((source) => source.shard === null);
  if (whole !== undefined) {
    return refuse(
      `${sharded[0]!.label} is shard ${sharded[0]!.shard!.index}/${sharded[0]!.shard!.count} of a trial and ${whole.label} a whole trial; its runs would be counted twice`,
    );
  }
  const count = sharded[0]!.shard!.count;
  const seen = new Map<number, string>();
  for (const source of sharded) {
    const { index, count: n } = source.shard!;
    if (n !== count) return refuse(`${sharded[0]!.label} is one of ${count} shards and ${source.label} one of ${n}`);
    const earlier = seen.get(index);
    if (earlier !== undefined)
      return refuse(`shard ${index}/${count} appears twice (${earlier} and ${source.label}); its runs would be counted twice`);
    seen.set(index, source.label);
  }
  const missing: number[] = [];
  for (let i = 1; i <= count; i++) if (!seen.has(i)) missing.push(i);
  const warnings =
    missing.length === 0
      ? []
      : [
          `shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing: the summary covers ${count - missing.length} of ${count} shards`,
        ];
  return { ok: true, warnings };
}

/** At most this many differing settings are named; the rest are counted. */
const NAMED_DIFFERENCES = 8;

/** `--hold is none in a but 5000 ms in b; …` for the settings that differ; null when either did not record its settings. */
function settingDifferences(a: MergeSource, b: MergeSource): string | null {
  if (!a.settings || !b.settings) return null;
  const x = a.settings;
  const y = b.settings;
  const names = [...new Set([...Object.keys(x), ...Object.keys(y)])].sort();
  const value = (settings: Readonly<Record<string, string>>, name: string): string =>
    Object.hasOwn(settings, name) ? settings[name]! : '(not set)';
  const differing = names.filter((name) => value(x, name) !== value(y, name));
  if (differing.length === 0) return null;
  const named = differing
    .slice(0, NAMED_DIFFERENCES)
    .map((name) => `${name} is ${value(x, name)} in ${a.label} but ${value(y, name)} in ${b.label}`);
  const more = differing.length - NAMED_DIFFERENCES;
  return `${named.join('; ')}${more > 0 ? `; and ${more} more setting${more === 1 ? '' : 's'}` : ''}`;
}

/** Decides whether the sources may be merged (the rules above); the message names the first two that differ. */
export function checkMerge(sources: readonly MergeSource[]): MergeDecision {
  const first = sources[0];
  if (first === undefined) return refuse('no trial or report folder with runs was given');
  for (const source of sources.slice(1)) {
    if (!compatibleVersions(first.harnessVersion, source.harnessVersion)) {
      return refuse(
        `${first.label} was made by harness ${first.harnessVersion} and ${source.label} by ${source.harnessVersion}; their reports differ`,
      );
    }
    if (scenarioSet(first) !== scenarioSet(source)) {
      return refuse(
        `${first.label} ran scenarios ${scenarioSet(first)} and ${source.label} ran ${scenarioSet(source)}; merge runs of one scenario set at a time`,
      );
    }
    if (first.kind !== source.kind) {
      return refuse(
        `${first.label} is a ${first.kind.replace('-', ' ')} and ${source.label} a ${source.kind.replace('-', ' ')}; their agents are not the same`,
      );
    }
    if (first.configuration !== source.configuration) {
      const differences = settingDifferences(first, source);
      return refuse(
        differences === null
          ? `${first.label} and ${source.label} were run with different configurations (model, endpoint, parameters, tasks or prompts)`
          : `${first.label} and ${source.label} measured different things: ${differences}`,
      );
    }
  }
  return checkShards(sources);
}
