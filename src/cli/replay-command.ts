/**
 * `replay`: runs recorded trial runs again with both sides replayed and compares them with their recorded
 * verdict, executions, attribution and honesty (docs/commands/replay.md). The work lives in
 * `replay-run.ts`, loaded only when the command runs.
 */
import { withValue } from './flag-spec.js';
import type { CAC } from 'cac';
import { PROGRAM_NAME } from '../version.js';
import type { CommandContext } from './io.js';
import { parseReplayFlags } from './replay-flags.js';
import { OTEL_FLAG_HELP, OTEL_SWITCH_HELP } from './otel-flags.js';

export function defineReplayCommand(cli: CAC, context: CommandContext): void {
  const command = cli
    .command('replay [...runs]', 'Run recorded runs again: exit 0 equal, 2 differs, 3 miss')
    .option(withValue('junit'), 'Write JUnit XML: one testcase per replayed run')
    .option(
      withValue('out'),
      "Keep the replayed runs' files (run.json, report.json, cassette.jsonl) under this folder; default: none kept",
    )
    .option(withValue('allow-redacted'), 'Replay recordings made with --redact (refused by default)')
    .option(
      withValue('live-upstream'),
      'Replay only the model: the real upstream answers (the command line or URL the run recorded, or --upstream-command), to check a server change against a recorded conversation',
    )
    .option(withValue('upstream-command'), 'With --live-upstream: the upstream to start in place of the recorded one')
    .option(withValue('upstream-arg'), 'With --live-upstream: one argument for --upstream-command; repeatable')
    .option(
      withValue('upstream-args'),
      'With --live-upstream: comma-separated arguments for --upstream-command (no commas inside); placed before the --upstream-arg values',
    )
    .option(
      withValue('allow-command'),
      'Replay only runs whose recorded programs (the agent program; with --live-upstream the upstream command) are this one, exactly as recorded; repeatable; others are REFUSED (a recording is code)',
    );
  command.option(withValue(OTEL_SWITCH_HELP[0]), OTEL_SWITCH_HELP[1]);
  for (const [flag, description] of OTEL_FLAG_HELP) command.option(withValue(flag), description);
  command
    .example(`${PROGRAM_NAME} replay out/runs/F1-001`)
    .example(`${PROGRAM_NAME} replay tests/recordings --junit replay-junit.xml`)
    .example(`${PROGRAM_NAME} replay tests/recordings --allow-command node --junit replay-junit.xml`)
    .example(`${PROGRAM_NAME} replay out/runs/F1-001 --live-upstream --upstream-command node --upstream-arg server.js`)
    .action((paths: string[]) => {
      const extra = Array.isArray(cli.options['--']) ? (cli.options['--'] as string[]) : [];
      const flags = parseReplayFlags([...paths, ...extra], context.values, context.io.cwd, context.io.env);
      return import('./replay-run.js').then((m) => m.runReplay(flags, context.io));
    });
}
