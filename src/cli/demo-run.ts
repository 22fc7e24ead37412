/**
 * The default command (no command given): the demo MCP server on stdio. Wires the stdio agent
 * side, the system clock, a random source and the report file `.cuonztech/audit-report.json` in the
 * current folder (its folder is created on each `get_report`) to the demo use case. Exit code 0 when the
 * agent disconnects or a signal arrives.
 */
import { join } from 'node:path';
import { FileReportSink } from '../adapters/files/file-report-sink.js';
import { createFolderOf } from '../adapters/files/report-files/output-files.js';
import { systemRandom } from '../adapters/time/seeded-random.js';
import { StdioAgentSide } from '../adapters/stdio-agent/index.js';
import { SystemClock } from '../adapters/time/system-clock.js';
import { createDemoHandler } from '../app/demo/demo-server.js';
import { DEMO_INSTRUCTIONS } from '../app/demo/demo-texts.js';
import type { AgentCloseReason } from '../ports/agent-side.port.js';
import type { ReportSink } from '../ports/report-sink.port.js';
import { HARNESS_VERSION, PROGRAM_NAME } from '../version.js';
import { EXIT_FAILURE, EXIT_OK, formatFatal } from './errors.js';
import { writeNotice, type CliIo } from './io.js';

/** Where `get_report` writes, relative to the current folder. */
export const DEMO_REPORT_FILE = '.cuonztech/audit-report.json';

/** Registers the default command: the demo MCP server. */
/** A sink that creates the report folder, then writes the file atomically on every publish. */
function demoReportSink(path: string): ReportSink {
  return {
    async publish(json) {
      await createFolderOf('report file', path);
      const sink = await FileReportSink.open(path);
      await sink.publish(json);
    },
  };
}

/** Serves the demo until the agent disconnects or a signal arrives; resolves with the exit code. */
export async function runDemo(io: CliIo): Promise<number> {
  const notice = (line: string) => writeNotice(io.stderr, line);
  const clock = new SystemClock();
  const handler = createDemoHandler({
    clock,
    // F6's late write lands --land-after ms later, as behind the proxy (the wait never keeps the process alive).
    timer: clock,
    random: systemRandom(),
    reportSink: demoReportSink(join(io.cwd, DEMO_REPORT_FILE)),
    reportFileLabel: DEMO_REPORT_FILE,
    harnessVersion: HARNESS_VERSION,
  });
  const side = new StdioAgentSide({ stdin: io.stdin, stdout: io.stdout });
  let finish: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => (finish = resolve));
  const closed = (reason: AgentCloseReason): void => {
    handler.closed(reason);
    if (reason.kind !== 'disconnected') notice(`agent session ended: ${reason.detail ?? reason.kind}`);
    finish(EXIT_OK);
  };
  const removeSignalHandler = io.onSignal(() => finish(EXIT_OK));
  try {
    await side.serve(() => ({ listTools: () => handler.listTools(), callTool: (r, c) => handler.callTool(r, c), closed }), {
      serverName: PROGRAM_NAME,
      serverVersion: HARNESS_VERSION,
      instructions: DEMO_INSTRUCTIONS,
    });
    notice(`demo MCP server on stdio (no real backend; a demo, not a measurement). get_report writes ${DEMO_REPORT_FILE}`);
  } catch (error) {
    io.stderr.write(`${formatFatal(error)}\n`);
    finish(EXIT_FAILURE);
  }
  const code = await done;
  removeSignalHandler();
  await side.close().catch(() => undefined);
  return code;
}
