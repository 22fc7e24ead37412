/**
 * `trial`: the command definition. The wiring lives in `trial-run.ts`, loaded only when the command runs.
 */
import { withValue } from './flag-spec.js';
import type { CAC } from 'cac';
import { PROGRAM_NAME } from '../version.js';
import { scenarioIds } from '../domain/faults/index.js';
import { hiddenOption } from './help.js';
import type { CommandContext } from './io.js';
import { EFFECTS_FLAG_HELP } from './effects-flags.js';
import { OTEL_FLAG_HELP, OTEL_SWITCH_HELP } from './otel-flags.js';
import { PROXY_FLAG_HELP } from './proxy-flags.js';
import { TRIAL_FLAG_HELP, TRIAL_OWN, TRIAL_REFUSED_FLAGS } from './trial-flag-help.js';

// The trial's own flags (e.g. --base-url) are declared once, with the trial's meaning.
const NOT_IN_TRIAL = new Set([...TRIAL_REFUSED_FLAGS.keys(), ...TRIAL_OWN, 'seed', 'scenario']);

export function defineTrialCommand(cli: CAC, context: CommandContext): void {
  const command = cli.command('trial', 'Run a real agent N times through the harness');
  command.option(withValue('scenario'), `One scenario ${scenarioIds().join(', ')} (or --scenarios for a matrix)`, {
    type: [String],
  });
  for (const [flag, description] of TRIAL_FLAG_HELP) command.option(withValue(flag), description, { type: [String] });
  for (const [flag, description] of PROXY_FLAG_HELP)
    if (!NOT_IN_TRIAL.has(flag)) command.option(withValue(flag), description, { type: [String] });
  for (const [flag, description] of [...EFFECTS_FLAG_HELP, ...OTEL_FLAG_HELP])
    command.option(withValue(flag), description, { type: [String] });
  command.option(withValue(OTEL_SWITCH_HELP[0]), OTEL_SWITCH_HELP[1]);
  // Declared so that the trial's own message explains why they are refused; not in --help.
  for (const [flag, why] of TRIAL_REFUSED_FLAGS) hiddenOption(command, withValue(flag), `Not used by trial: ${why}`);
  // The older name of --model-seed (issue 37 §3: in proxy --seed is the fault plan's), accepted for a release.
  hiddenOption(command, withValue('seed'), 'The older name of --model-seed');
  command.example(
    `${PROGRAM_NAME} trial --model qwen3:14b --task "Book a room for Ann Lee on 2026-05-01." --scenarios F1,F3 --runs 10 --upstream-command node --upstream-arg dist/examples/booking-server/server.js`,
  );
  command.example(
    `${PROGRAM_NAME} trial --agent-command node --agent-arg my-agent.js --model gpt-4.1-mini --base-url https://api.openai.com/v1 --api-key-env OPENAI_API_KEY --task "Book a room for Ann Lee on 2026-05-01." --scenarios F1 --runs 5 --upstream-command node --upstream-arg dist/examples/booking-server/server.js`,
  );
  command.example(`${PROGRAM_NAME} init && ${PROGRAM_NAME} trial --config harness.yaml --runs 10`);
  command.action(async () => (await import('./trial-run.js')).runTrial(context.values, context.io));
}
