/**
 * `replay`, run: reads and checks every recorded run first — a run that cannot be replayed is reported in
 * its place (`REFUSED`, its reason) and the others are replayed; when none can be, one line and exit 1,
 * nothing written — then wires each one's replay — its recording as the upstream (or, with
 * `--live-upstream`, the real one, started as `trial` starts it) and as the model's side, the in-process or program agent side, a trial folder for its files — to the replay use
 * case, prints one line per run (and its differences), writes `--junit`, and exits 0 (every run equal),
 * 2 (a run differs), 3 (a run left its recording) or 1 (a run could not be replayed; it wins, since the
 * suite did not run whole). No logic beyond wiring.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProgramRunner } from '../adapters/agent-program/index.js';
import { ReplayUpstreamSide } from '../adapters/cassette/replay-upstream-side.js';
import { InMemoryAgentSide } from '../adapters/in-memory-agent/index.js';
import {
  findRunFolders,
  readRecordedRun,
  RecordedRunError,
  type RecordedRunFiles,
} from '../adapters/files/report-files/recorded-runs.js';
import { refuseOutputsOverInputs, writeOutputFile } from '../adapters/files/report-files/output-files.js';
import { SeededRandom, systemRandom } from '../adapters/time/seeded-random.js';
import { silentLogger } from '../adapters/logging/silent-logger.js';
import { SystemClock } from '../adapters/time/system-clock.js';
import { TrialFolder } from '../adapters/files/trial-files/index.js';
import { ReplayService, unreplayable, type RecordedRun, type ReplayOutcome } from '../app/replay/replay-service.js';
import { commandNotAllowed, startedCommandText, type StartedCommand } from '../app/replay/recorded-commands.js';
import { replayJunit } from '../app/replay/replay-junit.js';
import type { TrialDeps } from '../app/trial/trial-deps.js';
import { expandAll, expandPlaceholders, runEnv, type RunPlace } from '../app/trial/placeholders.js';
import type { RunSpec } from '../app/trial/trial-plan.js';
import type { UpstreamSide } from '../ports/upstream-side.port.js';
import { errorMessage } from '../domain/error-message.js';
import { formatDifferences } from '../domain/trial/replay-diff.js';
import { escapeTerminalLines } from '../domain/text/terminal-text.js';
import { HARNESS_VERSION, PROGRAM_NAME } from '../version.js';
import { FatalError, formatFatal } from './errors.js';
import { writeNotice, type CliIo } from './io.js';
import type { ReplayFlags } from './replay-flags.js';
import { gatewayStarter } from './gateway-wiring.js';
import { startTracer, stopTracer } from './otel-run.js';
import { TrialTrace } from '../app/tracing/run-trace.js';

const BIN = fileURLToPath(new URL('./bin.js', import.meta.url));

export const REPLAY_EXIT = { equal: 0, badInput: 1, differs: 2, miss: 3 } as const;

export async function runReplay(flags: ReplayFlags, io: CliIo): Promise<number> {
  const entries = await readRuns(flags, io);
  const runs = entries.filter((entry): entry is ReadRun => entry.kind === 'run');
  const refused = entries.filter((entry): entry is RefusedRun => entry.kind === 'refused');
  const clock = new SystemClock();
  const files = new Map(runs.map((r) => [r.run, r.files]));
  // --otel: OpenTelemetry is loaded now, and not at all without it; every replayed run under one span.
  let tracer: Awaited<ReturnType<typeof startTracer>>;
  try {
    tracer = await startTracer(flags.otel);
  } catch (error) {
    throw new FatalError(`--otel: the OpenTelemetry exporter could not be loaded: ${errorMessage(error)}`);
  }
  const trace =
    tracer === undefined
      ? undefined
      : new TrialTrace(tracer, 'replay', { 'cuonztech.replay.runs': runs.length }, flags.otel?.payloads === true);
  const service = new ReplayService({
    clock,
    liveUpstream: flags.liveUpstream,
    openStore: (run) => openStore(run, flags.out),
    trialDeps: (run, store): TrialDeps => ({
      ...(trace !== undefined ? { trace } : {}),
      clock,
      timer: clock,
      logger: silentLogger,
      sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
      store,
      createUpstream: (place, spec) =>
        flags.liveUpstream
          ? liveUpstream(liveUpstreamOf(run, flags)!, place, spec, run.settings.callTimeoutMs, io)
          : Promise.resolve(new ReplayUpstreamSide(files.get(run)!.cassette)),
      ...(flags.out !== undefined
        ? {
            recordUpstream: async (upstream, folder, spec) =>
              (await import('./trial-recording.js')).recordRun(
                upstream,
                folder.dir,
                spec.id,
                files.get(run)!.cassette.header.redacted,
                () => undefined,
              ),
          }
        : {}),
      randomFor: (spec) => (spec.seed === undefined ? systemRandom() : SeededRandom.fromSeed(spec.seed)),
      chatModel: null,
      createInProcessAgentSide: () => new InMemoryAgentSide(),
      createListeningAgentSide: async () =>
        new (await import('../adapters/http-agent/index.js')).HttpAgentSide({ host: '127.0.0.1', port: 0, logger: silentLogger }),
      relayCommandFor: (url) => ({ command: process.execPath, args: [BIN, 'trial-relay', url] }),
      programs: new ProgramRunner(),
      // The recorded model side answers (`--model-replay`): a replay never forwards, so no key.
      startGateway: gatewayStarter(undefined),
      cwd: io.cwd,
      harnessVersion: HARNESS_VERSION,
      hash: (text) => createHash('sha256').update(text, 'utf8').digest('hex'),
      serverName: PROGRAM_NAME,
      notice: () => undefined,
      progress: () => undefined,
    }),
  });
  const outcomes: ReplayOutcome[] = [];
  // A signal stops the run in progress (its agent program and upstream are ended as a trial ends them) and
  // the runs after it: nothing is compared, exit 1.
  const stop = new AbortController();
  const removeSignalHandler = io.onSignal((signal) => {
    if (!stop.signal.aborted) stop.abort(signal);
  });
  try {
    for (const entry of entries) {
      if (entry.kind === 'refused') {
        io.stdout.write(escapeTerminalLines(`REFUSED  ${entry.name}: ${entry.why}\n`));
        continue;
      }
      const { run } = entry;
      // A recording is code: say which programs it makes replay start, before they start.
      for (const started of startedCommands(run, flags))
        io.stderr.write(escapeTerminalLines(`replay: ${run.name} starts its ${startedCommandText(started)}\n`));
      let outcome: ReplayOutcome;
      try {
        outcome = await service.replay(run, stop.signal);
      } catch (error) {
        throw new FatalError(`replay of ${run.name}: ${errorMessage(error)}`);
      }
      if (stop.signal.aborted)
        throw new FatalError(`replay stopped by ${String(stop.signal.reason)} during ${run.name}: nothing was compared`);
      outcomes.push(outcome);
      io.stdout.write(escapeTerminalLines(outcomeLines(outcome).join('\n') + '\n'));
    }
  } finally {
    removeSignalHandler();
    if (trace !== undefined) {
      const of = (status: ReplayOutcome['status']) => outcomes.filter((o) => o.status === status).length;
      trace.end({
        'cuonztech.replay.equal': of('equal'),
        'cuonztech.replay.differs': of('differs'),
        'cuonztech.replay.miss': of('miss'),
      });
      await stopTracer(tracer, (line) => writeNotice(io.stderr, line));
    }
  }
  const count = (status: ReplayOutcome['status']) => outcomes.filter((o) => o.status === status).length;
  io.stdout.write(
    `${outcomes.length} run(s) replayed: ${count('equal')} equal, ${count('differs')} differ, ${count('miss')} left their recording` +
      `${refused.length > 0 ? `; ${refused.length} could not be replayed (REFUSED above)` : ''}\n`,
  );
  if (flags.junit !== undefined) {
    try {
      await writeOutputFile('JUnit XML', flags.junit, replayJunit(outcomes, refused));
    } catch (error) {
      io.stderr.write(`${formatFatal(error)}\n`);
      return REPLAY_EXIT.badInput;
    }
  }
  if (refused.length > 0) return REPLAY_EXIT.badInput;
  return count('miss') > 0 ? REPLAY_EXIT.miss : count('differs') > 0 ? REPLAY_EXIT.differs : REPLAY_EXIT.equal;
}

interface ReadRun {
  kind: 'run';
  run: RecordedRun;
  files: RecordedRunFiles;
}

/** A run folder that cannot be replayed, and why (one line). */
interface RefusedRun {
  kind: 'refused';
  dir: string;
  name: string;
  why: string;
}

/**
 * Every run read and checked before any runs, in order. A run that cannot be replayed is kept as
 * refused, so the others still replay; when none can be (or the arguments are wrong), one line, exit 1,
 * nothing written.
 */
async function readRuns(flags: ReplayFlags, io: CliIo): Promise<Array<ReadRun | RefusedRun>> {
  let dirs: string[];
  try {
    dirs = await findRunFolders(flags.paths, io.cwd);
  } catch (error) {
    throw new FatalError(errorMessage(error));
  }
  const entries: Array<ReadRun | RefusedRun> = [];
  for (const dir of dirs) {
    try {
      entries.push(await readRun(dir, flags, io));
    } catch (error) {
      if (!(error instanceof RecordedRunError)) throw new FatalError(errorMessage(error));
      entries.push({ kind: 'refused', dir, name: error.run, why: error.why });
    }
  }
  const refused = entries.filter((entry) => entry.kind === 'refused');
  if (refused.length === entries.length) {
    const first = refused[0]!;
    throw new FatalError(
      `run ${first.name}: ${first.why}` +
        (refused.length > 1
          ? `; no run can be replayed (${refused.length} refused: ${refused.map((r) => r.name).join(', ')})`
          : ''),
    );
  }
  if (flags.junit !== undefined) {
    const read = entries.flatMap((entry) => {
      const dir = entry.kind === 'run' ? entry.run.dir : entry.dir;
      return [join(dir, 'run.json'), join(dir, 'cassette.jsonl')];
    });
    try {
      await refuseOutputsOverInputs([{ flag: '--junit', path: flags.junit }], read, 'a file replay reads');
    } catch (error) {
      throw new FatalError(errorMessage(error));
    }
  }
  return entries;
}

/** One run folder read and checked; throws a {@link RecordedRunError} when it cannot be replayed. */
async function readRun(dir: string, flags: ReplayFlags, io: CliIo): Promise<ReadRun> {
  const files = await readRecordedRun(dir, io.cwd, flags.allowRedacted);
  const refuse = (why: string): never => {
    throw new RecordedRunError(files.name, why);
  };
  const agent = files.settings.agent;
  const agentEnv: Record<string, string> = {};
  if (agent.kind === 'command')
    for (const name of agent.envNames) {
      const value = io.env[name];
      if (value === undefined)
        refuse(
          `its agent program was given --agent-env-var ${name} (the value is not recorded): set ${name} in the environment of replay`,
        );
      else agentEnv[name] = value;
    }
  const run: RecordedRun = {
    dir,
    name: files.name,
    runFile: files.runFile,
    settings: files.settings,
    cassette: { path: files.cassette.path, lines: files.cassette.lines },
    agentEnv,
  };
  const why = unreplayable(run) ?? commandNotAllowed(startedCommands(run, flags), flags.allowCommands);
  if (why !== null) refuse(why);
  if (flags.liveUpstream && liveUpstreamOf(run, flags) === null)
    refuse(
      'its run file names no upstream command line or URL to start (its upstream was a recording, or a URL with secrets): give --upstream-command',
    );
  return { kind: 'run', run, files };
}

/**
 * The replayed run's folder: under `--out DIR` at `DIR/<the run's path>/` (a trial folder: `runs/<run>/`),
 * kept; without it a private temporary folder, removed once the run is compared.
 */
async function openStore(run: RecordedRun, out: string | undefined) {
  if (out !== undefined) {
    const relative = isAbsolute(run.name) ? run.name.replace(/^[/\\]+/, '').replace(/^[A-Za-z]:[/\\]*/, '') : run.name;
    const store = await TrialFolder.open(join(out, relative.replaceAll('..', '__')));
    return { store, done: () => store.release() };
  }
  const temp = await mkdtemp(join(tmpdir(), 'cuonztech-replay-'));
  const store = await TrialFolder.open(join(temp, 'replayed'));
  return {
    store,
    done: async () => {
      await store.release();
      await rm(temp, { recursive: true, force: true });
    },
  };
}

/** `<run>: equal|differs|replay miss`, then the differences or the misses, indented. */
function outcomeLines(outcome: ReplayOutcome): string[] {
  const seconds = `${(outcome.durationMs / 1000).toFixed(1)} s`;
  const recorded = outcome.run.runFile['verdict'];
  const verdict = typeof recorded === 'string' ? recorded : '';
  if (outcome.status === 'equal') return [`EQUAL    ${outcome.run.name} (${verdict}, ${seconds})`];
  if (outcome.status === 'differs')
    return [`DIFFERS  ${outcome.run.name} (${seconds})`, ...formatDifferences(outcome.differences).map((l) => `  ${l}`)];
  return [`MISS     ${outcome.run.name} (${seconds})`, ...outcome.misses.map((l) => `  ${l}`)];
}

/** The programs a replay of `run` starts: its agent program, and with `--live-upstream` a command-line upstream. */
function startedCommands(run: RecordedRun, flags: ReplayFlags): StartedCommand[] {
  const started: StartedCommand[] = [];
  const agent = run.settings.agent;
  if (agent.kind === 'command') started.push({ role: 'agent program', command: agent.command, args: agent.args, recorded: true });
  const upstream = flags.liveUpstream ? liveUpstreamOf(run, flags) : null;
  if (upstream !== null && 'command' in upstream)
    started.push({ role: 'upstream', command: upstream.command, args: upstream.args, recorded: flags.upstream === undefined });
  return started;
}

/** `--live-upstream`: the upstream given, or the one the run recorded; null when there is none to start. */
function liveUpstreamOf(
  run: RecordedRun,
  flags: ReplayFlags,
): { command: string; args: readonly string[]; cwd: string | null } | { url: string } | null {
  if (flags.upstream !== undefined) return { ...flags.upstream, cwd: null };
  const recorded = run.settings.upstream;
  if (recorded.command !== null) return { command: recorded.command, args: recorded.args, cwd: recorded.cwd };
  if (recorded.url !== null && !recorded.url.includes('***')) return { url: recorded.url };
  return null;
}

/** The real upstream of one replayed run, started as `trial` starts it (placeholders and run variables). */
async function liveUpstream(
  upstream: NonNullable<ReturnType<typeof liveUpstreamOf>>,
  place: RunPlace,
  spec: RunSpec,
  callTimeoutMs: number,
  io: CliIo,
): Promise<UpstreamSide> {
  const common = {
    callTimeoutMs,
    connectTimeoutMs: Math.max(callTimeoutMs, 60_000),
    clientName: PROGRAM_NAME,
    clientVersion: HARNESS_VERSION,
    logger: silentLogger,
  };
  if ('url' in upstream) {
    const { HttpUpstreamSide } = await import('../adapters/http-upstream/index.js');
    return new HttpUpstreamSide({ url: new URL(upstream.url), headers: {}, ...common });
  }
  const { StdioUpstreamSide } = await import('../adapters/stdio-upstream/index.js');
  return new StdioUpstreamSide({
    command: upstream.command,
    args: expandAll(upstream.args, place),
    ...(upstream.cwd !== null ? { cwd: resolve(io.cwd, expandPlaceholders(upstream.cwd, place)) } : {}),
    env: runEnv(place, spec.scenarioLabel),
    ...common,
  });
}
