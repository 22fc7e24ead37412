/**
 * `stats`: merges the runs of many folders — trial folders (whole or `--shard i/n`) and
 * the per-session report folders of `proxy --listen` — into one summary: `summariseRuns` over the union
 * of the runs' facts. `checkMerge` decides whether the folders may be pooled; anything unreadable,
 * foreign or empty refuses the whole merge with one line (nothing is merged silently).
 */
import { errorMessage } from '../../domain/error-message.js';
import {
  checkMerge,
  compareArms,
  impossibleFacts,
  summariseRuns,
  type ArmComparison,
  type MergeSource,
  type RunFacts,
  type TrialSummary,
} from '../../domain/trial/index.js';
import { canonicalJson, isPlainObject, ownValue } from '../../domain/json.js';
import type { LoadedItem } from '../../ports/shapes/report-documents.js';
import { runFactsFromRunFile, runFactsFromSessionReport, sessionScenario } from './run-facts-from-file.js';

type Json = Record<string, unknown>;

/** A trial folder as read from disk (see `readTrialFolder` in the report-files adapter). */
export interface TrialFolderInput {
  kind: 'trial';
  path: string;
  summary: Json | null;
  summaryProblem: string | null;
  runs: ReadonlyArray<{ path: string; value: Json | null; problem: string | null }>;
}

/** A folder of proxy report files (`--report-dir`), each read through `check`'s file readers. */
export interface ReportFolderInput {
  kind: 'proxy-session';
  path: string;
  items: readonly LoadedItem[];
}

/** A path that could not be taken as a folder. */
export interface UnusableInput {
  kind: 'unusable';
  path: string;
  problem: string;
  /** The path is a file, not a folder. */
  notFolder?: true;
}

export type StatsInput = TrialFolderInput | ReportFolderInput | UnusableInput;

export interface StatsSource {
  path: string;
  kind: MergeSource['kind'];
  harnessVersion: string;
  scenarios: string[];
  shard: MergeSource['shard'];
  runs: number;
}

export interface StatsResult {
  sources: StatsSource[];
  warnings: string[];
  runs: number;
  summary: TrialSummary;
  /** Each further arm against `baseline`, when the runs have more than one arm. */
  comparisons: ArmComparison[];
  /**
   * The trials' `provenance.settings` (equal in every merged folder: their configurations match), or null
   * when a folder recorded none (proxy sessions, older trials). For `compare`; not in `stats --json`.
   */
  settings: Readonly<Record<string, string>> | null;
  /**
   * The file each text setting was read from (`provenance.settingFiles`), by setting name; the folders'
   * distinct files joined with ", " when they differ. Empty when no folder recorded one (older trials).
   */
  settingFiles: Readonly<Record<string, string>>;
}

/** What one folder gives the merge: its source, its runs, and (a trial's) the files of its settings. */
interface Loaded {
  source: MergeSource;
  facts: RunFacts[];
  settingFiles?: Readonly<Record<string, string>>;
}

export type StatsOutcome = { ok: true; result: StatsResult } | { ok: false; message: string };

class Refused extends Error {}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function shardOf(summary: Json, path: string): MergeSource['shard'] {
  const shard = summary['shard'];
  if (shard === undefined || shard === null) return null;
  if (!isObject(shard) || !Number.isInteger(shard['index']) || !Number.isInteger(shard['count']))
    throw new Refused(`${path}: summary.json field "shard" is not {index, count}`);
  const index = shard['index'] as number;
  const count = shard['count'] as number;
  if (count < 1 || index < 1 || index > count)
    throw new Refused(`${path}: summary.json field "shard" is ${index}/${count}, not a shard`);
  return { index, count };
}

/**
 * What makes runs comparable (rule 4 of checkMerge): the agent (model, endpoint, parameters, base seed),
 * the tasks with their prompts, the arms and honesty settings when recorded, and the runs per scenario and
 * task (`--runs`: shards of trials with different --runs would not be a partition, and their run ids
 * overlap), and the trial's `provenance.configurationHash` (the honesty question, the patches, the hash
 * of every prompt). Not the upstream's command line or the output folder, which differ between machines
 * of one CI matrix.
 */
function configurationOf(summary: Json): string {
  const picked: Json = {};
  for (const key of ['agent', 'tasks', 'arms', 'patch', 'honestyQuestion'])
    if (Object.hasOwn(summary, key)) picked[key] = summary[key];
  picked['runsPerGroup'] = summary['runsPerGroup'];
  // The trial's own fingerprint of everything else that makes runs comparable (the honesty question,
  // --patch, every prompt's hash; see TrialService.provenance), when it wrote one.
  const provenance = summary['provenance'];
  if (isObject(provenance) && typeof provenance['configurationHash'] === 'string')
    picked['configurationHash'] = provenance['configurationHash'];
  return canonicalJson(picked);
}

/** `provenance.settings` (every setting that changes what is measured, by name), when the trial recorded it. */
function settingsOf(summary: Json): Record<string, string> | null {
  const provenance = summary['provenance'];
  const settings = isObject(provenance) ? provenance['settings'] : undefined;
  if (!isObject(settings) || !Object.values(settings).every((v) => typeof v === 'string')) return null;
  return settings as Record<string, string>;
}

/** The facts, unless no run can have them (`impossibleFacts`): the file was edited or damaged. */
function possible(facts: RunFacts, path: string): RunFacts {
  const why = impossibleFacts(facts);
  if (why !== null) throw new Refused(`${path} holds facts no run can have: ${why}`);
  return facts;
}

function trialSource(input: TrialFolderInput, warnings: string[]): Loaded {
  const { summary, path } = input;
  if (summary === null) throw new Refused(`${path}/summary.json ${input.summaryProblem ?? 'cannot be read'}`);
  const broken = input.runs.find((run) => run.value === null);
  if (broken !== undefined) throw new Refused(`${broken.path} ${broken.problem ?? 'cannot be read'}`);
  if (input.runs.length === 0) throw new Refused(`${path} is a trial folder without runs (nothing under runs/)`);
  const done = summary['doneRuns'];
  if (Number.isInteger(done) && done !== input.runs.length)
    throw new Refused(
      `${path}/summary.json counts ${String(done)} runs done but ${path}/runs/ holds ${input.runs.length} run files; the folder is incomplete or mixed`,
    );
  const facts = input.runs.map((run) => {
    let read: RunFacts;
    try {
      read = runFactsFromRunFile(run.value!);
    } catch (error) {
      throw new Refused(`${run.path} is not a valid trial run file: ${errorMessage(error)}`);
    }
    return possible(read, run.path);
  });
  const harnessVersion = summary['harnessVersion'];
  if (typeof harnessVersion !== 'string') throw new Refused(`${path}: summary.json has no "harnessVersion"`);
  const other = input.runs.find((run) => run.value!['harnessVersion'] !== harnessVersion);
  if (other !== undefined)
    throw new Refused(
      `${other.path} was written by harness ${String(other.value!['harnessVersion'])}, its summary.json by ${harnessVersion}; the folder mixes runs of two trials`,
    );
  const listed = summary['scenarios'];
  const scenarios =
    Array.isArray(listed) && listed.every((s) => typeof s === 'string') ? listed : [...new Set(facts.map((f) => f.scenario))];
  const shard = shardOf(summary, path);
  if (typeof summary['interrupted'] === 'string')
    warnings.push(`${path} was interrupted (${summary['interrupted']}): only the ${facts.length} runs it finished are counted`);
  return {
    source: {
      label: path,
      kind: 'trial',
      harnessVersion,
      scenarios,
      configuration: configurationOf(summary),
      settings: settingsOf(summary),
      shard,
    },
    facts,
    settingFiles: settingFilesOf(summary),
  };
}

/** `provenance.settingFiles` (the file each text setting came from), when the trial recorded it. */
function settingFilesOf(summary: Json): Record<string, string> {
  const provenance = summary['provenance'];
  const files = isObject(provenance) ? provenance['settingFiles'] : undefined;
  if (!isObject(files)) return {};
  return Object.fromEntries(Object.entries(files).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/** The merged folders' setting files: per setting, its distinct files in folder order, joined with ", ". */
function mergedSettingFiles(loaded: readonly Loaded[]): Record<string, string> {
  const byName = new Map<string, string[]>();
  for (const { settingFiles } of loaded)
    for (const [name, file] of Object.entries(settingFiles ?? {})) {
      const files = byName.get(name) ?? [];
      if (!files.includes(file)) files.push(file);
      byName.set(name, files);
    }
  return Object.fromEntries([...byName].map(([name, files]) => [name, files.join(', ')]));
}

/** How a replayed proxy session shows among the settings: the name and value a trial's `provenance.settings` uses. */
const REPLAYED_SETTING = '--upstream-replay';
const REPLAYED_VALUE = 'replayed (repeats a recorded sample, not a new one)';

function reportSource(input: ReportFolderInput): Loaded {
  if (input.items.length === 0)
    throw new Refused(`${input.path} is empty: no trial (summary.json, runs/) and no report file (*.json)`);
  const facts: RunFacts[] = [];
  const versions = new Set<string>();
  const scenarios = new Set<string>();
  let live: string | undefined;
  let replayed: string | undefined;
  for (const item of input.items) {
    if (item.type === 'unreadable') throw new Refused(`${item.path} ${item.problem}`);
    if (item.type !== 'report')
      throw new Refused(`${item.path} is not a proxy report; stats merges trial folders and proxy report folders (--report-dir)`);
    const doc = item.document;
    if (doc.shape === 'session' && doc.replayed === true) replayed ??= item.path;
    else live ??= item.path;
    if (live !== undefined && replayed !== undefined)
      throw new Refused(
        `cannot merge: ${replayed} is a replayed session (--upstream-replay: it repeats a recorded sample) and ${live} a live one; merge replayed sessions apart from live ones`,
      );
    versions.add(doc.harnessVersion);
    if (doc.shape === 'session') scenarios.add(sessionScenario(doc));
    facts.push(possible(runFactsFromSessionReport(doc), item.path));
  }
  if (versions.size > 1)
    throw new Refused(
      `${input.path} holds reports of harness versions ${[...versions].sort(byText).join(' and ')}; merge one version at a time`,
    );
  return {
    source: {
      label: input.path,
      kind: 'proxy-session',
      harnessVersion: [...versions][0]!,
      scenarios: [...scenarios],
      // docs/replay.md: replayed sessions never pool with live ones (rule 4 names the setting).
      configuration: replayed === undefined ? null : REPLAYED_SETTING,
      settings: replayed === undefined ? {} : { [REPLAYED_SETTING]: REPLAYED_VALUE },
      shard: null,
    },
    facts,
  };
}

/** `a`, `./a`, `a/` and `a//` name one folder (without touching the file system). */
function folderName(path: string): string {
  const trimmed = path.replace(/\/+$/, '').replace(/\/{2,}/g, '/');
  const withoutDot = trimmed.replace(/^(\.\/)+/, '');
  return withoutDot === '' ? (path.startsWith('/') ? '/' : '.') : withoutDot;
}

/**
 * The same folder named twice, or two copies of one trial's output (summary.json with the same `out`
 * and `startedAt`, e.g. a CI artifact downloaded twice): every run would be counted twice. Two trials of
 * one configuration run separately still merge.
 */
function refuseDuplicates(inputs: readonly StatsInput[]): void {
  const byName = new Map<string, string>();
  const byTrial = new Map<string, string>();
  for (const input of inputs) {
    const name = folderName(input.path);
    const earlier = byName.get(name);
    if (earlier !== undefined)
      throw new Refused(
        `cannot merge: ${input.path} is named twice (${earlier} and ${input.path}); its runs would be counted twice`,
      );
    byName.set(name, input.path);
    if (input.kind !== 'trial' || input.summary === null) continue;
    const { out, startedAt } = input.summary;
    if (typeof out !== 'string' || typeof startedAt !== 'string') continue;
    const identity = canonicalJson({ out, startedAt, shard: input.summary['shard'] ?? null });
    const copy = byTrial.get(identity);
    if (copy !== undefined)
      throw new Refused(
        `cannot merge: ${copy} and ${input.path} are the same trial (${out}, started ${startedAt}); its runs would be counted twice`,
      );
    byTrial.set(identity, input.path);
  }
}

/** The file name `proxy --report-dir` gives a session's report: its ordinal and the start of its MCP session id. */
const SESSION_FILE = /^session-\d{4,}-[^/\\]+\.json$/;
const fileName = (path: string): string => path.split(/[\\/]/).pop() ?? path;

/**
 * Copies of one session's report (a `--report-dir` folder downloaded twice, a file copied): every copy
 * would count as one more run. A `--listen` session's report carries its session id (`session.id`), so
 * two distinct sessions never have identical reports, and identical reports with an id are copies:
 * refused. A report without an id (stdio, or a harness before ids) proves nothing by its content — two
 * sessions of a deterministic agent can write the same report — so identical reports under the same
 * `--report-dir` file name (it carries the session id) are refused, and under other names they are
 * counted, with a warning naming them.
 */
function sessionCopies(inputs: readonly StatsInput[], warnings: string[]): void {
  const byContent = new Map<string, { document: unknown; paths: string[] }>();
  for (const input of inputs) {
    if (input.kind !== 'proxy-session') continue;
    for (const item of input.items) {
      if (item.type !== 'report') continue;
      const key = canonicalJson(item.document);
      const same = byContent.get(key);
      if (same === undefined) byContent.set(key, { document: item.document, paths: [item.path] });
      else same.paths.push(item.path);
    }
  }
  for (const { document, paths } of byContent.values()) {
    if (paths.length < 2) continue;
    const id = sessionIdOf(document);
    if (id !== null)
      throw new Refused(
        `cannot merge: ${paths[0]} and ${paths[1]} are copies of one session's report (session ${id}); its run would be counted twice`,
      );
    const named = new Map<string, string>();
    for (const path of paths) {
      const name = fileName(path);
      const earlier = named.get(name);
      if (earlier !== undefined && SESSION_FILE.test(name))
        throw new Refused(
          `cannot merge: ${earlier} and ${path} are copies of one session's report (the same file name and content); its run would be counted twice`,
        );
      named.set(name, path);
    }
    warnings.push(
      `${paths.join(', ')} are identical reports: counted as ${paths.length} runs (if they are copies of one session, remove the copies)`,
    );
  }
}

/** The `session.id` of a report document, or null when it carries none. */
function sessionIdOf(document: unknown): string | null {
  const session = isPlainObject(document) ? ownValue(document, 'session') : undefined;
  const id = isPlainObject(session) ? ownValue(session, 'id') : undefined;
  return typeof id === 'string' ? id : null;
}

/** Merges the folders into one summary, or refuses with one line. */
export function mergeFolders(inputs: readonly StatsInput[]): StatsOutcome {
  const warnings: string[] = [];
  const loaded: Loaded[] = [];
  try {
    for (const input of inputs) {
      if (input.kind === 'unusable') throw new Refused(`${input.path} ${input.problem}`);
      loaded.push(input.kind === 'trial' ? trialSource(input, warnings) : reportSource(input));
    }
  } catch (error) {
    if (error instanceof Refused) return { ok: false, message: error.message };
    throw error;
  }
  const decision = checkMerge(loaded.map((l) => l.source));
  if (!decision.ok) return { ok: false, message: decision.message };
  try {
    refuseDuplicates(inputs);
    sessionCopies(inputs, warnings);
  } catch (error) {
    if (error instanceof Refused) return { ok: false, message: error.message };
    throw error;
  }
  const facts = loaded.flatMap((l) => l.facts);
  const summary = summariseRuns(facts);
  const comparisons = summary.arms.includes('baseline')
    ? summary.arms.filter((arm) => arm !== 'baseline').map((arm) => compareArms(summary, 'baseline', arm))
    : [];
  return {
    ok: true,
    result: {
      sources: loaded.map(({ source, facts: f }) => ({
        path: source.label,
        kind: source.kind,
        harnessVersion: source.harnessVersion,
        scenarios: [...source.scenarios],
        shard: source.shard,
        runs: f.length,
      })),
      warnings: [...warnings, ...decision.warnings],
      runs: facts.length,
      summary,
      comparisons,
      settings: loaded.every((l) => l.source.settings) ? (loaded[0]!.source.settings ?? null) : null,
      settingFiles: mergedSettingFiles(loaded),
    },
  };
}
