/**
 * `probe`: the command definition. The wiring lives in `probe-run.ts`, loaded only when the command runs.
 */
import { withValue } from './flag-spec.js';
import { hiddenOption } from './help.js';
import type { CAC } from 'cac';
import { PROGRAM_NAME } from '../version.js';
import type { CommandContext } from './io.js';
import { PROXY_FLAG_HELP } from './proxy-flags.js';
import { PROBE_FLAG_HELP, PROBE_OWN, PROBE_PROXY_FLAGS } from './probe-flags.js';
import { OTEL_FLAG_HELP, OTEL_SWITCH_HELP } from './otel-flags.js';

export function defineProbeCommand(cli: CAC, context: CommandContext): void {
  const command = cli.command('probe', 'Does a server keep its idempotency promise? P1–P9');
  for (const [flag, description] of PROBE_FLAG_HELP) command.option(withValue(flag), description, { type: [String] });
  for (const [flag, description] of PROXY_FLAG_HELP)
    if (PROBE_PROXY_FLAGS.includes(flag) && !PROBE_OWN.includes(flag))
      command.option(withValue(flag), description, { type: [String] });
  for (const [flag, description] of OTEL_FLAG_HELP) command.option(withValue(flag), description, { type: [String] });
  command.option(withValue(OTEL_SWITCH_HELP[0]), OTEL_SWITCH_HELP[1]);
  // The older name of --gap (issue 37 §3: --hold is F1's held answer in proxy and trial), accepted for a release.
  hiddenOption(command, withValue('hold'), 'The older name of --gap');
  command.example(
    `${PROGRAM_NAME} probe --upstream-command node --upstream-arg server.js --example create_payment='{"amount":5}' --count-with list_payments`,
  );
  command.action(async () => (await import('./probe-run.js')).runProbe(context.values, context.io));
}
