/**
 * `trial`, run: wires the upstream adapters (the same as `proxy`), the model endpoint or the agent
 * program runner, the in-process or HTTP agent side, the output folder, the clock and the progress view
 * to the trial use case. No logic beyond wiring.
 */
import { errorMessage } from '../domain/error-message.js';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { ProgramRunner } from '../adapters/agent-program/index.js';
import { InMemoryAgentSide } from '../adapters/in-memory-agent/index.js';
import { createLogger } from '../adapters/logging/logger.js';
import { OpenAiChatModel } from '../adapters/openai-chat/index.js';
import { SeededRandom, systemRandom } from '../adapters/time/seeded-random.js';
import { SystemClock } from '../adapters/time/system-clock.js';
import { TrialFolder } from '../adapters/files/trial-files/index.js';
import { expandAll, expandEnv, expandPlaceholders, runEnv, type RunPlace } from '../app/trial/placeholders.js';
import { ProgressView } from '../app/trial/progress.js';
import type { TrialDeps } from '../app/trial/trial-deps.js';
import { modelReplayOf, scenarioLabel, type RunSpec } from '../app/trial/trial-plan.js';
import { modelFaultKindLabel, modelFaultOnLabel } from '../domain/faults/model-fault.js';
import { recordedModelFault } from '../app/trial/replay-chat-model.js';
import { TrialService } from '../app/trial/trial-service.js';
import { describeAgent, setupAgent } from '../app/trial/agent-description.js';
import { formatStatistics, formatTable, modelFaultLine } from '../app/trial/summary-output.js';
import { escapeTerminalLines } from '../domain/text/terminal-text.js';
import { redactUrl } from '../domain/text/url-redaction.js';
import { HARNESS_VERSION, PROGRAM_NAME } from '../version.js';
import type { FlagValues } from './argv.js';
import { FatalError } from './errors.js';
import { noticeText, writeNotice, type CliIo } from './io.js';
import { createUpstream, loadReplay } from './upstream-wiring.js';
import { gatewayStarter } from './gateway-wiring.js';
import { resolveTrialFlags, upstreamSettings } from './trial-config.js';
import { parseTrialFlags, type TrialFlags } from './trial-flags.js';
import { startTracer, stopTracer, TRACE_SHUTDOWN_MS } from './otel-run.js';
import { TrialTrace } from '../app/tracing/run-trace.js';
import type { SettingsOrigin } from '../app/trial/trial-settings.js';

const BIN = fileURLToPath(new URL('./bin.js', import.meta.url));

export async function runTrial(values: FlagValues, io: CliIo): Promise<number> {
  const clock = new SystemClock();
  const given = await resolveTrialFlags(values, io.cwd);
  let flags: TrialFlags;
  try {
    flags = await parseTrialFlags(given.values, io.env, io.cwd, new Date(clock.now()), given.inline);
  } catch (error) {
    throw given.locate(error);
  }
  const { plan } = flags;
  const progress = new ProgressView(
    (text) => io.stderr.write(text),
    (io.stderr as { isTTY?: boolean }).isTTY === true,
    () => clock.now(),
    `[${PROGRAM_NAME}]`,
  );
  // Notices quote outside text (tool names, an upstream's or agent's words): escaped for the terminal. On a
  // terminal they go above the progress bar, not onto its line.
  const notice = (line: string) => progress.line(noticeText(line));
  const logger = await createLogger(flags.proxy.logLevel, (line) => writeNotice(io.stderr, line));
  const agent = plan.agent;
  const chatModel =
    agent.kind === 'model' && agent.replay === undefined
      ? new OpenAiChatModel({
          baseUrl: agent.baseUrl,
          model: agent.model,
          timeoutMs: flags.modelTimeoutMs,
          ...(flags.apiKey !== undefined ? { apiKey: flags.apiKey } : {}),
        })
      : null;
  if (chatModel !== null) {
    const check = await chatModel.check();
    if (!check.ok) throw new FatalError(check.reason);
  }
  const gateway = agent.kind === 'command' ? agent.gateway : undefined;
  const forward = gateway?.kind === 'forward' ? await import('../adapters/model-gateway/forward.js') : undefined;
  if (forward !== undefined && gateway?.kind === 'forward') {
    // Before any run (and before the output folder): an endpoint that is not there is one line, exit 1.
    const check = await forward.checkForwardEndpoint(gateway.baseUrl);
    if (!check.ok) throw new FatalError(check.reason);
  }
  // Before the output folder: a recording that cannot be replayed is one line, exit 1.
  const replay = await loadReplay(flags.proxy, io);
  const recording = await import('./trial-recording.js');
  let store: TrialFolder;
  try {
    store = await TrialFolder.open(flags.out);
  } catch (error) {
    throw new FatalError(errorMessage(error));
  }
  if (store.takenOver !== null) notice(store.takenOver);
  // --otel: OpenTelemetry is loaded now, and not at all without it.
  let tracer: Awaited<ReturnType<typeof startTracer>>;
  try {
    tracer = await startTracer(flags.otel);
  } catch (error) {
    await store.discardIfUnused();
    throw new FatalError(`--otel: the OpenTelemetry exporter could not be loaded: ${errorMessage(error)}`);
  }
  const trace =
    tracer === undefined
      ? undefined
      : new TrialTrace(
          tracer,
          'trial',
          {
            'cuonztech.scenarios': plan.scenarios.map(scenarioLabel),
            'cuonztech.trial.runs': plan.runs,
            'cuonztech.trial.concurrency': plan.concurrency,
          },
          flags.otel?.payloads === true,
        );
  const deps: TrialDeps = {
    ...(trace !== undefined ? { trace } : {}),
    clock,
    timer: clock,
    logger,
    sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
    store,
    createUpstream: (run, spec) => createUpstream(upstreamFlagsFor(flags, run, spec), io, logger, replay),
    recordUpstream: (upstream, folder, spec) =>
      recording.recordRun(
        upstream,
        folder.dir,
        spec.id,
        [...(replay?.header.redacted ?? []), ...flags.proxy.redact],
        notice,
        // The header names the run's model fault: a --model-replay under another one is refused.
        flags.plan.modelFault === undefined ? undefined : recordedModelFault(flags.plan.modelFault),
      ),
    randomFor: (spec) => (spec.seed === undefined ? systemRandom() : SeededRandom.fromSeed(spec.seed)),
    chatModel,
    createInProcessAgentSide: () => new InMemoryAgentSide(),
    createListeningAgentSide: async () =>
      new (await import('../adapters/http-agent/index.js')).HttpAgentSide({ host: '127.0.0.1', port: 0, logger }),
    relayCommandFor: (url) => ({ command: process.execPath, args: [BIN, 'trial-relay', url] }),
    programs: new ProgramRunner(),
    ...(flags.plan.effects?.command !== undefined
      ? { recordsCommand: new (await import('../adapters/processes/records-command.js')).ProcessRecordsCommand() }
      : {}),
    startGateway: gatewayStarter(flags.apiKey),
    cwd: io.cwd,
    harnessVersion: HARNESS_VERSION,
    hash: (text) => createHash('sha256').update(text, 'utf8').digest('hex'),
    serverName: PROGRAM_NAME,
    notice,
    progress: (event) => progress.handle(event),
  };
  const origin: SettingsOrigin = {
    file: given.source.file,
    fileSha256: given.source.fileText === null ? null : deps.hash(given.source.fileText),
    fromFile: given.source.fromFile,
    fromCommandLine: given.source.fromCommandLine,
  };
  const service = new TrialService(deps, plan, setupOf(flags), { upstream: upstreamSettings(flags), origin });
  try {
    await service.checkUpstream();
  } catch (error) {
    await store.discardIfUnused();
    trace?.end({}, errorMessage(error));
    await tracer?.shutdown(TRACE_SHUTDOWN_MS);
    throw new FatalError(errorMessage(error));
  }
  notice(
    `trial: ${plan.scenarios.length} scenario(s) × ${plan.tasks.length} task(s) × ${plan.runs} run(s), concurrency ${plan.concurrency}; output ${store.root}`,
  );
  const removeSignalHandler = io.onSignal((signal) => {
    if (service.stopRequested) {
      notice(
        `received ${signal} again: the runs in progress are stopped now (NOT_TESTED, interrupted), then the summary is written`,
      );
      service.stopRunsInProgress(signal);
      return;
    }
    notice(
      `received ${signal}: no new run starts; the runs in progress finish, then the summary is written (a second signal stops them now)`,
    );
    service.stop(`received ${signal}`);
  });
  let result;
  try {
    result = await service.run();
  } catch (error) {
    trace?.end({}, errorMessage(error));
    throw error;
  } finally {
    removeSignalHandler();
    await store.release();
    if (trace !== undefined) {
      trace.end(result === undefined ? {} : trialFigures(result.records));
      await stopTracer(tracer, notice);
    }
  }
  progress.finish();
  io.stdout.write(
    escapeTerminalLines(
      formatTable(
        result.groups,
        store.root,
        [
          ...(result.interruptedNote === null ? [] : [result.interruptedNote]),
          ...formatStatistics(result.statistics, result.comparison, result.patchNote),
        ],
        plan.modelFault === undefined ? [] : [modelFaultLine(plan.modelFault)],
      ),
    ),
  );
  return 0;
}

/** The trial span's figures at its end: runs done and per verdict. */
function trialFigures(records: ReadonlyArray<{ outcome: { verdict: string } }>): Record<string, number> {
  const count = (verdict: string) => records.filter((r) => r.outcome.verdict === verdict).length;
  return {
    'cuonztech.trial.done_runs': records.length,
    'cuonztech.trial.pass': count('PASS'),
    'cuonztech.trial.fail': count('FAIL'),
    'cuonztech.trial.not_tested': count('NOT_TESTED'),
  };
}

/** The proxy's upstream flags for one run: placeholders expanded, the run's variables added (stdio upstreams). */
function upstreamFlagsFor(flags: TrialFlags, run: RunPlace, spec: RunSpec): TrialFlags['proxy'] {
  const p = flags.proxy;
  if (p.upstreamCommand === undefined) return p;
  return {
    ...p,
    upstreamArgs: expandAll(p.upstreamArgs, run),
    upstreamEnv: { ...runEnv(run, spec.scenarioLabel), ...expandEnv(p.upstreamEnv, run) },
    upstreamCwd: p.upstreamCwd === undefined ? undefined : expandPlaceholders(p.upstreamCwd, run),
  };
}

/** What summary.json records about the setup (no API key, no header values). */
function setupOf(flags: TrialFlags): Record<string, unknown> {
  const p = flags.proxy;
  const recording = modelReplayOf(flags.plan);
  return {
    ...(recording !== undefined ? { modelReplay: resolve(recording.file) } : {}),
    agent: setupAgent(describeAgent(flags.plan.agent)),
    upstream:
      p.upstreamReplay !== undefined
        ? { replay: resolve(p.upstreamReplay) }
        : p.upstreamUrl !== undefined
          ? { url: redactUrl(p.upstreamUrl.href) }
          : {
              command: p.upstreamCommand,
              args: p.upstreamArgs,
              cwd: p.upstreamCwd === undefined ? null : resolve(p.upstreamCwd),
            },
    tasks: flags.plan.tasks,
    ...(flags.plan.modelFault !== undefined
      ? {
          modelFault: {
            kind: modelFaultKindLabel(flags.plan.modelFault.fault),
            on: modelFaultOnLabel(flags.plan.modelFault.on),
          },
        }
      : {}),
  };
}
