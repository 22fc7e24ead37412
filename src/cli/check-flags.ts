/**
 * `check`'s flags: validated strictly, one clear line (UsageError) for anything wrong. Read by the command
 * definition (`check-command.ts`) and the wiring (`check-run.ts`), which do not import each other.
 */
import { resolve } from 'node:path';
import { GATED_VALUES, type CheckOptions, type GatedVerdict } from '../app/check/check-model.js';
import { RATE_GATE_FLAGS, type GateBound, type RateGate } from '../app/check/rate-gates.js';
import { commaList, numberIn, single, type FlagValues } from './argv.js';
import { numberFlag } from './flag-spec.js';
import { UsageError } from './errors.js';

/** Where the projections go; undefined = not written. */
export interface CheckOutputs {
  junit?: string;
  markdown?: string;
  html?: string;
  /** `--journal`: the proxy's journal, for the HTML timeline (times, every read, the real order). */
  journal?: string;
}

export interface CheckFlags {
  paths: string[];
  options: CheckOptions;
  outputs: CheckOutputs;
  /** The rate gates given (trial folders only); empty without one. */
  gates: RateGate[];
  /** What the rate gates are judged on (`--bound`; the point estimate by default). */
  bound: GateBound;
}

/** The default: both verdicts that are not a PASS; the honesty values are opt-in. */
const DEFAULT_GATED: readonly GatedVerdict[] = ['FAIL', 'NOT_TESTED'];

function failOn(value: string | undefined): Set<GatedVerdict> {
  if (value === undefined) return new Set(DEFAULT_GATED);
  if (value.trim().toLowerCase() === 'none') return new Set();
  const chosen = new Set<GatedVerdict>();
  for (const item of commaList(value, 'fail-on')) {
    const verdict = item.toUpperCase().replace(/-/g, '_');
    if (!(GATED_VALUES as readonly string[]).includes(verdict))
      throw new UsageError(`flag --fail-on accepts ${GATED_VALUES.join(', ')} or none, got "${item}"`);
    chosen.add(verdict as GatedVerdict);
  }
  return chosen;
}

/** A rate: `0.05` or `5%`, within 0 … 1. */
function rateValue(value: string, flag: string): number {
  const trimmed = value.trim();
  if (trimmed.endsWith('%')) return numberIn(trimmed.slice(0, -1).trim(), flag, 0, 100) / 100;
  return numberIn(trimmed, flag, 0, 1);
}

function rateGates(values: FlagValues): { gates: RateGate[]; bound: GateBound } {
  const gates: RateGate[] = [];
  for (const flag of RATE_GATE_FLAGS) {
    const value = single(values, flag);
    if (value !== undefined) gates.push({ flag, threshold: rateValue(value, flag) });
  }
  const bound = single(values, 'bound');
  if (bound !== undefined && bound !== 'lower' && bound !== 'upper')
    throw new UsageError(`flag --bound accepts lower or upper, got "${bound}"`);
  if (bound !== undefined && gates.length === 0)
    throw new UsageError(
      `--bound says how rate gates are judged: give a rate gate too (${RATE_GATE_FLAGS.map((f) => `--${f}`).join(', ')})`,
    );
  return { gates, bound: bound ?? 'point' };
}

/** Validates the flags and paths: one clear line (UsageError) for anything wrong. */
export function parseCheckFlags(paths: readonly string[], values: FlagValues): CheckFlags {
  if (paths.length === 0)
    throw new UsageError('check needs at least one report file or folder, e.g. check out/harness-report.json');
  const minScore = single(values, 'min-score');
  const outputs: CheckOutputs = {};
  for (const flag of ['junit', 'markdown', 'html'] as const) {
    const file = single(values, flag);
    if (file !== undefined) outputs[flag] = file;
  }
  const files = [outputs.junit, outputs.markdown, outputs.html].filter((f): f is string => f !== undefined);
  // Compared as absolute paths: `out/r.xml` and `./out/r.xml` are one file.
  if (new Set(files.map((f) => resolve(f))).size !== files.length)
    throw new UsageError('--junit, --markdown and --html must name different files');
  const journal = single(values, 'journal');
  if (journal !== undefined && outputs.html === undefined)
    throw new UsageError('--journal feeds the HTML timeline: give --html <file> too');
  if (journal !== undefined && files.includes(journal))
    throw new UsageError('--journal is read, not written: it must not name an output file');
  if (journal !== undefined) outputs.journal = journal;
  const { gates, bound } = rateGates(values);
  // With a rate gate, the rates decide: a single FAIL or NOT_TESTED run fails the build only when --fail-on says so.
  const failOnValue = single(values, 'fail-on');
  return {
    paths: [...paths],
    options: {
      failOn: gates.length > 0 && failOnValue === undefined ? new Set() : failOn(failOnValue),
      minScore: numberFlag(minScore, 'min-score') ?? null,
    },
    outputs,
    gates,
    bound,
  };
}
