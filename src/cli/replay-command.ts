/**
 * `replay`: runs recorded trial runs again with both sides replayed and compares them with their recorded
 * verdict, executions, attribution and honesty (docs/commands/replay.md). The work lives in
 * `replay-run.ts`, loaded only when the command runs.
 */
import type { CAC } from 'cac';
import { PROGRAM_NAME } from '../version.js';
import type { CommandContext } from './io.js';
import { parseReplayFlags } from './replay-flags.js';
import { OTEL_FLAGS } from './otel-flags.js';
import { declareFlags } from './help.js';

export function defineReplayCommand(cli: CAC, context: CommandContext): void {
  const command = cli.command('replay [...runs]', 'Run recorded runs again: exit 0 equal, 2 differs, 3 miss');
  declareFlags(command, [
    'junit',
    'out',
    'allow-redacted',
    'live-upstream',
    'upstream-command',
    'upstream-arg',
    'upstream-args',
    'allow-command',
    ...OTEL_FLAGS,
  ]);
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
