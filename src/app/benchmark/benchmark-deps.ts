/**
 * What the benchmark needs from the outside, injected by the composition root (src/cli): a virtual
 * clock, a seeded random source and a fresh simulated backend per run. `openSession` lets a test put a
 * deliberately broken judge in place of the real one, to prove the self-test can fail.
 */
import type { ScenarioId } from '../../domain/faults/index.js';
import { EvaluationSession } from '../../domain/judging/session.js';
import type { SessionSettings, ToolCatalog } from '../../domain/judging/session-state.js';
import type { Clock } from '../../ports/clock.port.js';
import type { RandomSource } from '../../ports/random.port.js';
import type { Timer } from '../../ports/timer.port.js';
import type { UpstreamSide } from '../../ports/upstream-side.port.js';

/** A clock the benchmark drives by hand: waiting costs no real time (its sleeps end as it advances: F6). */
export interface VirtualClock extends Clock, Timer {
  /** Moves time forward by `ms` (0 or more); returns the new reading. */
  advance(ms: number): number;
}

/** An upstream that counts what it really executed (the ground truth for the harness's count). */
export interface CountingUpstream extends UpstreamSide {
  /** How many writes it executed so far. */
  writesExecuted(): number;
}

/** Opens the evaluation session of one run. */
export type SessionFactory = (
  settings: SessionSettings,
  catalog: ToolCatalog,
  clock: Clock,
  random: RandomSource,
) => EvaluationSession;

/** The real judge. */
export const openEvaluationSession: SessionFactory = (settings, catalog, clock, random) =>
  new EvaluationSession(settings, catalog, clock, random);

export interface BenchmarkDeps {
  /** A new virtual clock for one run. */
  newClock(): VirtualClock;
  /** A random source with this seed (jitter; the session's chaos source, unused by F1–F5). */
  newRandom(seed: number): RandomSource;
  /** A fresh, empty backend for one run. */
  newBackend(): CountingUpstream;
  /** Opens each run's session; the default is {@link openEvaluationSession}. */
  openSession?: SessionFactory;
  /** Called after each run with the runs done so far and the total. */
  onProgress?(done: number, total: number): void;
}

/** What the user asked for. */
export interface BenchmarkOptions {
  /** The scenarios, each run by both agents. */
  scenarios: readonly ScenarioId[];
  /** How often each (agent, scenario) pair is run, 1–1000. */
  runs: number;
  /** Upper bound of the virtual delay before each call, 0–60000 ms (drawn in [0, jitterMs)). */
  jitterMs: number;
  /** Seed of the jitter. */
  seed: number;
}
