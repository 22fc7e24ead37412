/**
 * `init [file]`: writes the starter config file of `trial` (default `harness.yaml`). The work lives in
 * `init-run.ts`, loaded only when the command runs.
 */
import { declareFlags } from './help.js';
import type { CAC } from 'cac';
import { PROGRAM_NAME } from '../version.js';
import type { CommandContext } from './io.js';

export function defineInitCommand(cli: CAC, context: CommandContext): void {
  const command = cli.command('init [file]', 'Write a starter trial config (default harness.yaml)');
  declareFlags(command, ['force']);
  command
    .example(`${PROGRAM_NAME} init && ${PROGRAM_NAME} trial --config harness.yaml`)
    .action((file: string | undefined) => import('./init-run.js').then((m) => m.runInit(file, context.values, context.io)));
}
