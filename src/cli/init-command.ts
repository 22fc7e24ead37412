/**
 * `init [file]`: writes the starter config file of `trial` (default `harness.yaml`). The work lives in
 * `init-run.ts`, loaded only when the command runs.
 */
import { withValue } from './flag-spec.js';
import type { CAC } from 'cac';
import { PROGRAM_NAME } from '../version.js';
import type { CommandContext } from './io.js';

export function defineInitCommand(cli: CAC, context: CommandContext): void {
  cli
    .command('init [file]', 'Write a starter trial config (default harness.yaml)')
    .option(withValue('force'), 'Replace an existing file (a symbolic link is never followed nor replaced)')
    .example(`${PROGRAM_NAME} init && ${PROGRAM_NAME} trial --config harness.yaml`)
    .action((file: string | undefined) => import('./init-run.js').then((m) => m.runInit(file, context.values, context.io)));
}
