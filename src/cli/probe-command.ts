/**
 * `probe`: the command definition. The wiring lives in `probe-run.ts`, loaded only when the command runs.
 */
import type { CAC } from 'cac';
import { PROGRAM_NAME } from '../version.js';
import { declareFlags } from './help.js';
import type { CommandContext } from './io.js';
import { PROBE_FLAGS, PROBE_PROXY_FLAGS } from './probe-flags.js';
import { OTEL_FLAGS } from './otel-flags.js';

export function defineProbeCommand(cli: CAC, context: CommandContext): void {
  const command = cli.command('probe', 'Does a server keep its idempotency promise? P1–P9');
  // --hold, the older name of --gap (issue 37 §3: --hold is F1's held answer in proxy and trial), comes
  // with the spec, accepted for a release.
  declareFlags(command, [...PROBE_FLAGS, ...PROBE_PROXY_FLAGS, ...OTEL_FLAGS]);
  command.example(
    `${PROGRAM_NAME} probe --upstream-command node --upstream-arg server.js --example create_payment='{"amount":5}' --count-with list_payments`,
  );
  command.action(async () => (await import('./probe-run.js')).runProbe(context.values, context.io));
}
