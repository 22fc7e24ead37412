/**
 * `probe`, run: wires the upstream adapters (the same as `proxy`, a new one per probe), the reset command,
 * the clock and random keys to the probe use case; prints the table, writes `--json`. No logic beyond wiring.
 */
import { errorMessage } from '../domain/error-message.js';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { ProgramRunner } from '../adapters/agent-program/index.js';
import { createLogger } from '../adapters/logging/logger.js';
import { writeOutputFile } from '../adapters/files/report-files/output-files.js';
import { systemRandom } from '../adapters/time/seeded-random.js';
import { SystemClock } from '../adapters/time/system-clock.js';
import { ProbeInputError, ProbeService } from '../app/probe/probe-service.js';
import { probeJunit, probeMarkdown } from '../app/probe/probe-formats.js';
import { formatProbeTable, probeExitCode } from '../app/probe/probe-text.js';
import { PROBE_RESULTS_SCHEMA_VERSION } from '../domain/report/schema-versions.js';
import type { ProbeResultsFile } from '../ports/shapes/probe-results.js';
import { escapeTerminalLines } from '../domain/text/terminal-text.js';
import { HARNESS_VERSION } from '../version.js';
import type { FlagValues } from './argv.js';
import { FatalError, UsageError } from './errors.js';
import { writeNotice, type CliIo } from './io.js';
import { parseProbeFlags } from './probe-flags.js';
import { createUpstream } from './upstream-wiring.js';
import { startTracer, stopTracer } from './otel-run.js';
import { ProbeTrace } from '../app/tracing/probe-trace.js';

export async function runProbe(values: FlagValues, io: CliIo): Promise<number> {
  const flags = await parseProbeFlags(values, io.cwd, io.env);
  const logger = await createLogger(flags.proxy.logLevel, (line) => writeNotice(io.stderr, line));
  const clock = new SystemClock();
  const programs = new ProgramRunner();
  const resetCommand = flags.resetCommand;
  // --otel: OpenTelemetry is loaded now, and not at all without it.
  let tracer: Awaited<ReturnType<typeof startTracer>>;
  try {
    tracer = await startTracer(flags.otel);
  } catch (error) {
    throw new FatalError(`--otel: the OpenTelemetry exporter could not be loaded: ${errorMessage(error)}`);
  }
  const trace = tracer === undefined ? undefined : new ProbeTrace(tracer, flags.otel?.payloads === true);
  const service = new ProbeService(
    {
      createUpstream: () => createUpstream(flags.proxy, io, logger, undefined, { relayToAgent: false }),
      ...(resetCommand === undefined
        ? {}
        : {
            reset: async () => {
              const exit = await programs.shell(resetCommand, io.cwd, 120_000);
              if (exit.spawnError !== undefined) return `the reset command could not start: ${exit.spawnError}`;
              if (exit.timedOut) return 'the reset command took longer than 120 s';
              return exit.exitCode === 0 ? null : `the reset command failed (exit code ${exit.exitCode ?? exit.signal})`;
            },
          }),
      newKey: () => `cuonztech-probe-${randomUUID()}`,
      clock,
      timer: clock,
      random: systemRandom(),
      ...(trace !== undefined ? { trace } : {}),
      ...(flags.effects?.command !== undefined
        ? {
            effectsCommand: {
              runner: new (await import('../adapters/processes/records-command.js')).ProcessRecordsCommand(),
              cwd: io.cwd,
            },
          }
        : {}),
    },
    {
      tools: flags.tools,
      examples: flags.examples,
      countWith: flags.countWith,
      effects: flags.effects,
      keyFields: flags.proxy.keyFields,
      classification: flags.proxy.classification,
      gapMs: flags.gapMs,
      callTimeoutMs: flags.proxy.upstreamTimeoutMs,
    },
  );
  let report;
  try {
    report = await service.run();
  } catch (error) {
    trace?.end(null, errorMessage(error));
    await stopTracer(tracer, (line) => writeNotice(io.stderr, line));
    if (error instanceof ProbeInputError) throw new UsageError(error.message);
    throw new FatalError(errorMessage(error));
  }
  trace?.end(report);
  await stopTracer(tracer, (line) => writeNotice(io.stderr, line));
  const outputs: Array<[string | undefined, string, () => string]> = [
    [
      flags.json,
      'probe results',
      () => {
        const file: ProbeResultsFile = {
          schemaVersion: PROBE_RESULTS_SCHEMA_VERSION,
          kind: 'probe-results',
          harnessVersion: HARNESS_VERSION,
          exitCode: probeExitCode(report),
          ...report,
        };
        return `${JSON.stringify(file, null, 2)}\n`;
      },
    ],
    [flags.markdown, 'probe Markdown', () => probeMarkdown(report)],
    [flags.junit, 'probe JUnit', () => probeJunit(report)],
  ];
  for (const [file, what, text] of outputs) {
    if (file === undefined) continue;
    try {
      await writeOutputFile(what, resolve(io.cwd, file), text());
    } catch (error) {
      throw new FatalError(errorMessage(error));
    }
  }
  io.stdout.write(escapeTerminalLines(formatProbeTable(report, { reset: flags.resetCommand !== undefined })));
  return probeExitCode(report);
}
