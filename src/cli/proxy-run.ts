/**
 * `proxy`, run: wires the stdio agent side, the stdio upstream, the report file, the clock, the random
 * source and the logger to the proxy use case. No logic beyond wiring.
 */
import { errorMessage } from '../domain/error-message.js';
import { resolve } from 'node:path';
import { createLogger } from '../adapters/logging/logger.js';
import { FileReportTarget } from '../adapters/files/file-report-sink.js';
import { FileJournal } from '../adapters/files/file-journal.js';
import { SeededRandom, systemRandom } from '../adapters/time/seeded-random.js';
import { ReportDirectory } from '../adapters/files/report-directory.js';
import { DeferredAgentSide } from '../adapters/agent-core/deferred-agent-side.js';
import type { Logger } from '../ports/logger.port.js';
import type { UpstreamSide } from '../ports/upstream-side.port.js';
import { SystemClock } from '../adapters/time/system-clock.js';
import { AGENT_DISCONNECTED, ProxyService } from '../app/proxy/proxy-service.js';
import { scenarioName } from '../domain/report/verdict.js';
import { HARNESS_VERSION, PROGRAM_NAME } from '../version.js';
import type { FlagValues } from './argv.js';
import { EXIT_FAILURE, FatalError, formatFatal, UsageError } from './errors.js';
import { writeNotice, type CliIo } from './io.js';
import { listenWarning } from './listen-warning.js';
import { parseProxyFlags, type ProxyFlags } from './proxy-flags.js';
import { parseEffectsFlags } from './effects-flags.js';
import { parseOtelFlags } from './otel-flags.js';
import { startTracer, stopTracer, TRACE_SHUTDOWN_MS } from './otel-run.js';
import { createUpstream, loadReplay, type Replay } from './upstream-wiring.js';
import { OwnerLockFiles } from '../adapters/files/owner-lock.js';
import type { FileLocks, HeldLock } from '../ports/file-lock.port.js';
import { lockJournal, lockReportFile } from '../app/proxy/proxy-file-locks.js';

export async function runProxy(values: FlagValues, io: CliIo): Promise<number> {
  const flags = parseProxyFlags(values);
  const effects = parseEffectsFlags(values);
  const otel = parseOtelFlags(values, io.env);
  if (effects !== null && flags.upstreamReplay !== undefined)
    throw new UsageError(
      `--effects-${effects.command !== undefined ? 'command' : 'tool'} reads a live backend: a recording (--upstream-replay) has none to read`,
    );
  const notice = (line: string) => writeNotice(io.stderr, line);
  const logger = await createLogger(flags.logLevel, notice);
  // Everything that can be refused without side effects first, then the port, then the report folder,
  // and only then the upstream: a busy port or a bad folder never starts an upstream or leaves a folder.
  const brokenHints = flags.probeResults === undefined ? [] : await readBrokenHints(resolve(io.cwd, flags.probeResults));
  if (flags.redact.length > 0 && !(flags.journal !== undefined && flags.journalPayloads))
    throw new UsageError(
      "--redact is for the recording and the journal's payloads, which the proxy writes with --journal FILE --journal-payloads on: give those too",
    );
  // Issue 41 §12: a journal another live proxy writes is refused before anything starts (its lock beside it).
  const locks = new OwnerLockFiles();
  const held: HeldLock[] = [];
  if (flags.journal !== undefined)
    held.push(
      await lockJournal(locks, resolve(io.cwd, flags.journal), notice).catch((error: unknown) => {
        throw new FatalError(errorMessage(error));
      }),
    );
  try {
    return await serve({ flags, effects, otel, io, notice, logger, brokenHints, locks, held });
  } finally {
    // Normal end, SIGINT/SIGTERM/SIGHUP (the service stops, then this runs) and every refusal alike.
    for (const lock of held) lock.release();
  }
}

interface ServeContext {
  flags: ProxyFlags;
  effects: ReturnType<typeof parseEffectsFlags>;
  otel: ReturnType<typeof parseOtelFlags>;
  io: CliIo;
  notice: (line: string) => void;
  logger: Logger;
  brokenHints: Awaited<ReturnType<typeof readBrokenHints>>;
  locks: FileLocks;
  /** The locks this proxy holds, released by `runProxy` whatever the end. */
  held: HeldLock[];
}

async function serve({ flags, effects, otel, io, notice, logger, brokenHints, locks, held }: ServeContext): Promise<number> {
  const replay = await loadReplay(flags, io);
  // --otel: OpenTelemetry loads while the upstream starts (and not at all without it).
  const tracerLoading = startTracer(otel);
  tracerLoading.catch(() => undefined);
  const modelGateway = flags.modelGateway === undefined ? undefined : await startModelGateway(flags.modelGateway, notice);
  let upstream: UpstreamSide;
  try {
    upstream = await createUpstream(flags, io, logger, replay);
  } catch (error) {
    await modelGateway?.close();
    throw error;
  }
  // R-15: the effects view reads the upstream itself, never through the recording tap put in front below.
  const effectsUpstream = upstream;
  const listener = flags.listen === undefined ? undefined : await bindListener(flags, flags.listen, logger, notice);
  // --report-file or --report-dir (never both: the flags refuse it), or no report at all.
  let target: FileReportTarget | ReportDirectory | null = null;
  /** --report-dir: the folders it created are removed again when the start-up fails. */
  let reportDir: ReportDirectory | null = null;
  try {
    if (flags.reportFile !== undefined) target = await FileReportTarget.open(resolve(io.cwd, flags.reportFile), { notice });
    if (flags.reportDir !== undefined)
      target = reportDir = await ReportDirectory.open(resolve(io.cwd, flags.reportDir), { notice });
    // R-13 keeps "the last writer wins"; a live proxy holding the same report file is told on stderr.
    const sameAsJournal = flags.journal !== undefined && resolve(io.cwd, flags.journal) === target?.location;
    if (target instanceof FileReportTarget && !sameAsJournal) {
      const lock = await lockReportFile(locks, target.location, notice);
      if (lock !== null) held.push(lock);
    }
  } catch (error) {
    await listener?.close();
    await modelGateway?.close();
    throw new FatalError(`report file not usable: ${errorMessage(error)}`);
  }
  const clock = new SystemClock();
  let journal: FileJournal | null = null;
  if (flags.journal !== undefined) {
    try {
      journal = await FileJournal.open(resolve(io.cwd, flags.journal), {
        payloads: flags.journalPayloads,
        // The recording's redactions (a replayed recording's carry over), so no payload file keeps a redacted value.
        redact: redactedFields(flags, replay),
        harnessVersion: HARNESS_VERSION,
        replayed: replay !== undefined,
        now: () => clock.now(),
        notice,
        distinctFrom: [flags.reportFile, flags.reportHtml].flatMap((file) => (file === undefined ? [] : [resolve(io.cwd, file)])),
      });
      // With the payloads, the recording beside the journal (docs/replay.md): the upstream's side of every call.
      if (flags.journalPayloads) upstream = await recordUpstream(upstream, journal.path, flags, replay, notice);
    } catch (error) {
      journal?.close();
      await listener?.close();
      await modelGateway?.close();
      await reportDir?.removeIfUnused();
      throw new FatalError(errorMessage(error));
    }
  }
  const agentSide =
    listener ??
    new DeferredAgentSide(
      async () =>
        new (await import('../adapters/stdio-agent/index.js')).StdioAgentSide({ stdin: io.stdin, stdout: io.stdout }, { logger }),
    );
  let tracer: Awaited<typeof tracerLoading>;
  try {
    tracer = await tracerLoading;
  } catch (error) {
    journal?.close();
    await listener?.close();
    await modelGateway?.close();
    await reportDir?.removeIfUnused();
    throw new FatalError(`--otel: the OpenTelemetry exporter could not be loaded: ${errorMessage(error)}`);
  }
  const random = flags.seed === undefined ? systemRandom() : SeededRandom.fromSeed(flags.seed);
  // The seed is part of the report's configuration block whenever something draws from it.
  const seeded = flags.scenario.mode === 'chaos' || flags.scenario.latency !== undefined;
  const scenario = seeded ? { ...flags.scenario, seed: random.seed } : flags.scenario;
  const service = new ProxyService(
    {
      upstream,
      agentSide,
      reportTarget: target,
      journal,
      ...(modelGateway !== undefined ? { modelSide: modelGateway.modelSide } : {}),
      effectsUpstream,
      ...(effects?.command !== undefined
        ? {
            effectsCommand: {
              runner: new (await import('../adapters/processes/records-command.js')).ProcessRecordsCommand(),
              cwd: io.cwd,
            },
          }
        : {}),
      clock,
      timer: clock,
      random,
      logger,
      notice,
      ...(tracer !== undefined ? { tracer, tracePayloads: otel?.payloads === true } : {}),
    },
    {
      scenario,
      keyFields: flags.keyFields,
      idempotentHint: flags.idempotentHint,
      brokenHints,
      classification: flags.classification,
      auditTools: flags.auditTools,
      callTimeoutMs: flags.upstreamTimeoutMs,
      drainMs: 2_000,
      harnessVersion: HARNESS_VERSION,
      replayed: replay !== undefined,
      serverName: PROGRAM_NAME,
      stopWhenSessionEnds: listener === undefined,
      logCalls: flags.logLevel === 'info' || flags.logLevel === 'debug',
      effects,
    },
  );
  const removeSignalHandler = io.onSignal((signal) => void service.stop(`received ${signal}`));
  let ready = false;
  try {
    try {
      await service.start();
    } catch (error) {
      const failure = `upstream did not start: ${errorMessage(error)}`;
      // Agents that connected during start-up wait for it: they get this reason, not a hung request.
      await listener?.close(`The proxy could not start: ${failure}`);
      io.stderr.write(`${formatFatal(new FatalError(failure))}\n`);
      return EXIT_FAILURE;
    }
    ready = !service.stopped;
    if (ready) printReady();
    const exit = await service.done;
    if (exit.code !== 0 || exit.reason !== AGENT_DISCONNECTED) notice(`stopped: ${exit.reason}`);
    await stopTracer(tracer, notice);
    if (exit.endLine !== null) notice(exit.endLine);
    if (flags.reportHtml !== undefined) {
      const report = target?.location;
      const written =
        report === undefined
          ? null
          : await (
              await import('./html-report.js')
            ).writeHtmlReport([report], resolve(io.cwd, flags.reportHtml), io, journal?.path);
      if (written === false) return EXIT_FAILURE;
    }
    return exit.code;
  } finally {
    // A start that failed: whatever spans there are still leave (the summary line is for a run).
    await tracer?.shutdown(TRACE_SHUTDOWN_MS);
    await modelGateway?.close();
    journal?.close();
    removeSignalHandler();
    if (!ready) await reportDir?.removeIfUnused();
  }

  function printReady(): void {
    const seed = seeded ? `, seed ${random.seed}` : '';
    const reports = target === null ? 'no report file' : `report ${reportDir === null ? 'file' : 'folder'} ${target.location}`;
    const where = listener === undefined ? '' : `; agents connect to ${listener.address.url}`;
    notice(
      `proxy ready: ${scenarioName(flags.scenario)}${timingAndAim(flags.scenario)}${seed}; audit tools ${flags.auditTools ? 'on' : 'off'}; ${reports}${where}`,
    );
  }
}

/** `, aimed at pay_* (write 2), latency 100±20 ms, hold 5000 ms` — what the flags changed, or ''. */
function timingAndAim(scenario: ProxyFlags['scenario']): string {
  const parts: string[] = [];
  if (scenario.aim !== undefined)
    parts.push(
      `aimed at ${scenario.aim.tools?.join(',') ?? 'every tool'}${scenario.mode === 'scenario' ? ` (write ${scenario.aim.on})` : ''}`,
    );
  if (scenario.latency !== undefined)
    parts.push(`latency ${scenario.latency.ms}${scenario.latency.jitterMs > 0 ? `±${scenario.latency.jitterMs}` : ''} ms`);
  if (scenario.holdMs !== undefined) parts.push(`hold ${scenario.holdMs} ms`);
  return parts.length === 0 ? '' : `, ${parts.join(', ')}`;
}

/** `--probe-results FILE`: read before the upstream starts; a bad file is one line, exit 1. */
async function readBrokenHints(path: string): Promise<string[]> {
  try {
    return await (await import('../adapters/files/report-files/probe-results-file.js')).readBrokenHints(path);
  } catch (error) {
    throw new FatalError(errorMessage(error));
  }
}

/**
 * `--model-gateway HOST:PORT --base-url URL`: the endpoint is checked and the gateway bound before the
 * upstream starts (an unreachable endpoint or a busy port is one line, exit 1). Its exchanges feed the
 * session's model side, which counts as seen from the agent's first model request on (R-14.2).
 */
async function startModelGateway(options: NonNullable<ProxyFlags['modelGateway']>, notice: (line: string) => void) {
  const [{ parseListenAddress }, { isLoopbackHost }, forward, { ModelSide }, { ModelSideFeed }, { redactUrl }] =
    await Promise.all([
      import('../adapters/http-agent/listen-address.js'),
      import('../adapters/http-agent/host-guard.js'),
      import('../adapters/model-gateway/forward.js'),
      import('../domain/judging/attribution.js'),
      import('../app/proxy/model-side-feed.js'),
      import('../domain/text/url-redaction.js'),
    ]);
  let address: { host: string; port: number };
  try {
    address = parseListenAddress(options.listen);
  } catch (error) {
    throw new UsageError(`flag --model-gateway: ${errorMessage(error)}`);
  }
  if (!isLoopbackHost(address.host))
    throw new UsageError(
      `flag --model-gateway listens on this machine only (127.0.0.1, ::1 or localhost), got "${options.listen}"`,
    );
  const check = await forward.checkForwardEndpoint(options.baseUrl);
  if (!check.ok) throw new FatalError(check.reason);
  const modelSide = new ModelSide(false);
  const feed = new ModelSideFeed(modelSide);
  let gateway: Awaited<ReturnType<typeof forward.startProxyModelGateway>>;
  try {
    gateway = await forward.startProxyModelGateway({ baseUrl: options.baseUrl, ...address, onExchange: (e) => feed.exchange(e) });
  } catch (error) {
    throw new FatalError(`--model-gateway ${options.listen}: ${errorMessage(error)}`);
  }
  notice(
    `model gateway on ${gateway.openAiBaseUrl} (OPENAI_BASE_URL; ANTHROPIC_BASE_URL ${gateway.url}) forwarding to ${redactUrl(options.baseUrl)}`,
  );
  return { modelSide, close: () => gateway.close() };
}

/** `--listen`: the HTTP agent side, bound before anything else starts; warns when it is not loopback only. */
async function bindListener(flags: ProxyFlags, listen: string, logger: Logger, notice: (line: string) => void) {
  const http = await import('../adapters/http-agent/index.js');
  const { host, port } = parseListen(http.parseListenAddress, listen);
  const side = new http.HttpAgentSide({
    host,
    port,
    logger,
    notice,
    maxSessions: flags.maxSessions,
    sessionIdleTimeoutMs: flags.sessionIdleTimeoutMs,
  });
  try {
    await side.bind();
  } catch (error) {
    throw new FatalError(errorMessage(error));
  }
  const warning = listenWarning(listen, http.isLoopbackHost(host));
  if (warning !== undefined) notice(warning);
  return side;
}

function parseListen(parse: (value: string) => { host: string; port: number }, value: string): { host: string; port: number } {
  try {
    return parse(value);
  } catch (error) {
    throw new UsageError(`flag --listen: ${errorMessage(error)}`);
  }
}

/**
 * The recording tap in front of an upstream: `proxy --journal FILE --journal-payloads on` writes
 * `FILE`'s stem + `.cassette.jsonl`. A replayed recording's redactions carry over, so redacted values
 * never come back unmarked.
 */
async function recordUpstream(
  upstream: UpstreamSide,
  journalPath: string,
  flags: ProxyFlags,
  replay: Replay | undefined,
  notice: (line: string) => void,
): Promise<UpstreamSide> {
  const [{ CassetteFile, cassettePathBesideJournal }, { RecordingUpstreamSide }] = await Promise.all([
    import('../adapters/cassette/cassette-file.js'),
    import('../adapters/cassette/recording-upstream-side.js'),
  ]);
  const file = await CassetteFile.open(cassettePathBesideJournal(journalPath), notice);
  return new RecordingUpstreamSide(upstream, file, {
    recorded: 'proxy',
    harnessVersion: HARNESS_VERSION,
    redact: redactedFields(flags, replay),
  });
}

/** `--redact`'s fields and a replayed recording's: the recording and the journal's payloads redact the same ones. */
function redactedFields(flags: ProxyFlags, replay: Replay | undefined): string[] {
  return [...new Set([...(replay?.header.redacted ?? []), ...flags.redact])];
}
