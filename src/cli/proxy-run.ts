/**
 * `proxy`, run: wires the stdio agent side, the stdio upstream, the report file, the clock, the random
 * source and the logger to the proxy use case. No logic beyond wiring.
 */
import { resolve } from 'node:path';
import { createLogger } from '../adapters/logger.js';
import { FileReportSink } from '../adapters/file-report-sink.js';
import { SeededRandom, systemRandom } from '../adapters/seeded-random.js';
import { ReportDirectory } from '../adapters/report-directory.js';
import { DeferredAgentSide } from '../adapters/deferred-agent-side.js';
import { StdioUpstreamSide } from '../adapters/stdio-upstream/index.js';
import type { Logger } from '../ports/logger.port.js';
import type { UpstreamSide } from '../ports/upstream-side.port.js';
import { SystemClock } from '../adapters/system-clock.js';
import { ProxyService } from '../app/proxy/proxy-service.js';
import { scenarioName } from '../domain/verdict.js';
import { HARNESS_VERSION, PROGRAM_NAME } from '../version.js';
import type { FlagValues } from './argv.js';
import { EXIT_FAILURE, FatalError, formatFatal, UsageError } from './errors.js';
import type { CliIo } from './io.js';
import { parseProxyFlags, type ProxyFlags } from './proxy-flags.js';

export async function runProxy(values: FlagValues, io: CliIo): Promise<number> {
  const flags = parseProxyFlags(values);
  const notice = (line: string) => io.stderr.write(`[${PROGRAM_NAME}] ${line}\n`);
  const logger = await createLogger(flags.logLevel, io.stderr);
  const http = flags.listen === undefined ? undefined : await import('../adapters/http-agent/index.js');
  const listen = flags.listen === undefined || http === undefined ? undefined : parseListen(http.parseListenAddress, flags.listen);
  let sink: FileReportSink | null = null;
  let reportDir: ReportDirectory | null = null;
  try {
    if (flags.reportFile !== undefined) sink = await FileReportSink.open(resolve(io.cwd, flags.reportFile));
    if (flags.reportDir !== undefined) reportDir = await ReportDirectory.open(resolve(io.cwd, flags.reportDir));
  } catch (error) {
    throw new FatalError(`report file not usable: ${error instanceof Error ? error.message : String(error)}`);
  }
  const agentSide = listen === undefined || http === undefined
    ? new DeferredAgentSide(async () => new (await import('../adapters/stdio-agent/index.js')).StdioAgentSide({ stdin: io.stdin, stdout: io.stdout }, { logger }))
    : new http.HttpAgentSide({ ...listen, logger });
  const random = flags.seed === undefined ? systemRandom() : SeededRandom.fromSeed(flags.seed);
  const upstream = await createUpstream(flags, io, logger);
  const service = new ProxyService(
    {
      upstream, agentSide, startupSink: sink,
      sessionSink: (sessionId, ordinal) => reportDir?.sinkFor(sessionId, ordinal) ?? sink,
      clock: new SystemClock(), random, logger, notice,
    },
    {
      scenario: flags.scenario, keyFields: flags.keyFields, classification: flags.classification, auditTools: flags.auditTools,
      callTimeoutMs: flags.upstreamTimeoutMs, drainMs: 2_000, harnessVersion: HARNESS_VERSION, serverName: PROGRAM_NAME,
      stopWhenSessionEnds: listen === undefined,
    },
  );
  const removeSignalHandler = io.onSignal((signal) => void service.stop(`received ${signal}`));
  try {
    try {
      await service.start();
    } catch (error) {
      io.stderr.write(`${formatFatal(new FatalError(`upstream did not start: ${error instanceof Error ? error.message : String(error)}`))}\n`);
      return EXIT_FAILURE;
    }
    if (!service.stopped) printReady();
    const exit = await service.done;
    if (exit.code !== 0 || exit.reason !== 'the agent disconnected') notice(`stopped: ${exit.reason}`);
    return exit.code;
  } finally {
    removeSignalHandler();
  }

  function printReady(): void {
    const seed = flags.scenario.mode === 'chaos' ? `, seed ${random.seed}` : '';
    const reports = sink !== null ? `report file ${sink.targetPath}` : reportDir !== null ? `report folder ${reportDir.path}` : 'no report file';
    const where = 'address' in agentSide ? `; agents connect to ${agentSide.address.url}` : '';
    notice(`proxy ready: ${scenarioName(flags.scenario)}${seed}; audit tools ${flags.auditTools ? 'on' : 'off'}; ${reports}${where}`);
  }
}

function parseListen(parse: (value: string) => { host: string; port: number }, value: string): { host: string; port: number } {
  try {
    return parse(value);
  } catch (error) {
    throw new UsageError(`flag --listen: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The upstream adapter the flags ask for: a spawned stdio process or a remote Streamable HTTP server. */
export async function createUpstream(flags: ProxyFlags, io: CliIo, logger: Logger): Promise<UpstreamSide> {
  const common = {
    callTimeoutMs: flags.upstreamTimeoutMs,
    connectTimeoutMs: Math.max(flags.upstreamTimeoutMs, 60_000),
    clientName: PROGRAM_NAME,
    clientVersion: HARNESS_VERSION,
    logger,
  };
  if (flags.upstreamUrl !== undefined) {
    const { HttpUpstreamSide, parseHeaderFlags } = await import('../adapters/http-upstream/index.js');
    let headers: Record<string, string>;
    try {
      headers = parseHeaderFlags(flags.upstreamHeaderFlags, flags.upstreamHeaderEnvFlags, io.env);
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    return new HttpUpstreamSide({ url: flags.upstreamUrl, headers, ...common });
  }
  return new StdioUpstreamSide({
    command: flags.upstreamCommand!,
    args: flags.upstreamArgs,
    ...(flags.upstreamCwd !== undefined ? { cwd: resolve(io.cwd, flags.upstreamCwd) } : {}),
    env: flags.upstreamEnv,
    ...common,
  });
}
