/**
 * What the trial use case needs from the outside, as small interfaces the adapters satisfy (the CLI
 * wires them). Everything that spawns, listens, writes files or talks HTTP is behind one of these.
 */
import type { RecordsCommand } from '../../ports/records-command.port.js';
import type { AgentSide } from '../../ports/agent-side.port.js';
import type { ChatModel } from '../../ports/chat-model.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { Timer } from '../../ports/timer.port.js';
import type { Logger } from '../../ports/logger.port.js';
import type { RandomSource } from '../../ports/random.port.js';
import type { ReportSink } from '../../ports/report-sink.port.js';
import type { ProgramRunner } from '../../ports/program-runner.port.js';
import type { StartGateway } from '../../ports/model-gateway.port.js';
import type { UpstreamSide } from '../../ports/upstream-side.port.js';
import type { ModelRecorder } from '../../ports/cassette.port.js';
import type { ToolClient } from './model-conversation.js';
import type { RunPlace } from './placeholders.js';
import type { RunSpec } from './trial-plan.js';
import type { TrialTrace } from '../tracing/run-trace.js';

/** An agent side in this process that the built-in loop connects to (see `InMemoryAgentSide`). */
export interface InProcessAgentSide extends AgentSide {
  connect(sessionId: string): ToolClient & { disconnect(): void };
}

/** An agent side listening on 127.0.0.1 for the user's agent program (see `HttpAgentSide`). */
export interface ListeningAgentSide extends AgentSide {
  readonly address: { url: string };
}

/** One run's folder and the sink of its report file (`report.json`, written like `proxy --report-file`). */
export interface RunFolder extends RunPlace {
  reportFile: string;
  reportSink: ReportSink;
  /** Gives back what the run's report files still hold open (called once the run file is written). */
  release(): Promise<void>;
}

/** The trial's output folder. */
export interface TrialStore {
  /** The folder, absolute. */
  readonly root: string;
  /** Creates `runs/<id>/`. */
  openRun(runId: string): Promise<RunFolder>;
  /** A file's text; null when it does not exist. */
  readText(path: string): Promise<string | null>;
  /** Writes a JSON file (atomically) at a path relative to the root; answers its absolute path. */
  writeJson(relativePath: string, value: unknown): Promise<string>;
  /** Writes a text file (atomically), e.g. `summary.md`; answers its absolute path. */
  writeText(relativePath: string, text: string): Promise<string>;
}

export type { ProgramExit, ProgramRunner, ProgramSpec } from '../../ports/program-runner.port.js';

/** Progress of a trial, for the stderr bar or lines. */
export type TrialEvent =
  | { kind: 'start'; total: number }
  | {
      kind: 'run-done';
      run: RunSpec;
      verdict: string;
      reason: string;
      toolCalls: number;
      durationMs: number;
      done: number;
      total: number;
    };

export interface TrialDeps {
  clock: Clock;
  /** Waits for `--latency` and `--hold` inside a run's proxy (without it those flags cannot run). */
  timer?: Timer;
  logger: Logger;
  sleep: (ms: number) => Promise<void>;
  store: TrialStore;
  /** A fresh upstream for one run (placeholders expanded, run variables added). */
  createUpstream(run: RunPlace, spec: RunSpec): Promise<UpstreamSide>;
  /**
   * The recording of a run (`runs/<run>/cassette.jsonl`, docs/replay.md): the run's upstream with every
   * message it exchanges written down, and where the run's model requests and answers go. Without it,
   * nothing is recorded.
   */
  recordUpstream?(
    upstream: UpstreamSide,
    folder: RunFolder,
    spec: RunSpec,
  ): Promise<{ upstream: UpstreamSide; model: ModelRecorder }>;
  /** The random source of a run's fault plan (chaos mode). */
  randomFor(spec: RunSpec): RandomSource;
  /** Built-in loop only. */
  chatModel: ChatModel | null;
  createInProcessAgentSide(): InProcessAgentSide;
  /** For agent programs: a listener on 127.0.0.1, any free port (stdio agents reach it through the relay). */
  createListeningAgentSide(): Promise<ListeningAgentSide>;
  /** `--agent-transport stdio`: the command line of the stdio relay to a run's listener. */
  relayCommandFor(url: string): { command: string; args: string[] };
  programs: ProgramRunner;
  /** runs an effects command view (`--effects-command`); absent: none can run. */
  recordsCommand?: RecordsCommand;
  /**
   * Agent programs with `--stub-model`, `--model-replay` or `--model --base-url`: one run's model gateway
   * (forward mode's real key is wired in).
   */
  startGateway: StartGateway;
  /** The working folder for agent programs and the reset command. */
  cwd: string;
  harnessVersion: string;
  /** sha256 of a text, hex (the prompt hashes of the summary's provenance). */
  hash(text: string): string;
  serverName: string;
  /** Human lines for stderr (the upstream's tool classification, once). */
  notice(line: string): void;
  progress(event: TrialEvent): void;
  /** `--otel` (docs/traces.md): the trial's span, under which each run gets its own; absent: no traces. */
  trace?: TrialTrace;
}
