/**
 * `trial`: the command definition. The wiring lives in `trial-run.ts`, loaded only when the command runs.
 */
import type { CAC } from 'cac';
import { PROGRAM_NAME } from '../version.js';
import { declareFlags } from './help.js';
import type { CommandContext } from './io.js';
import { TRIAL_COMMAND_FLAGS } from './trial-flag-help.js';

export function defineTrialCommand(cli: CAC, context: CommandContext): void {
  const command = cli.command('trial', 'Run a real agent N times through the harness');
  // The proxy's flags come on top of the trial's own; those the trial refuses or takes under a newer
  // name (--seed) are declared so by the spec, and left out of --help.
  declareFlags(command, TRIAL_COMMAND_FLAGS);
  command.example(
    `${PROGRAM_NAME} trial --model qwen3:14b --task "Book a room for Ann Lee on 2026-05-01." --scenarios F1,F3 --runs 10 --upstream-command node --upstream-arg dist/examples/booking-server/server.js`,
  );
  command.example(
    `${PROGRAM_NAME} trial --agent-command node --agent-arg my-agent.js --model gpt-4.1-mini --base-url https://api.openai.com/v1 --api-key-env OPENAI_API_KEY --task "Book a room for Ann Lee on 2026-05-01." --scenarios F1 --runs 5 --upstream-command node --upstream-arg dist/examples/booking-server/server.js`,
  );
  command.example(`${PROGRAM_NAME} init && ${PROGRAM_NAME} trial --config harness.yaml --runs 10`);
  command.action(async () => (await import('./trial-run.js')).runTrial(context.values, context.io));
}
