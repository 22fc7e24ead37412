/**
 * `proxy`: the command definition. The wiring lives in `proxy-run.ts`, loaded only when the command runs,
 * so `--help`, `--version` and the other commands do not pay for the adapters' dependencies.
 */
import { withValue } from './flag-spec.js';
import type { CAC } from 'cac';
import { PROGRAM_NAME } from '../version.js';
import type { CommandContext } from './io.js';
import { EFFECTS_FLAG_HELP } from './effects-flags.js';
import { PROXY_FLAG_HELP } from './proxy-flags.js';
import { OTEL_FLAG_HELP, OTEL_SWITCH_HELP } from './otel-flags.js';

export function defineProxyCommand(cli: CAC, context: CommandContext): void {
  const command = cli.command('proxy', 'Chaos proxy in front of your MCP server (stdio or HTTP)');
  for (const [flag, description] of [...PROXY_FLAG_HELP, ...EFFECTS_FLAG_HELP, ...OTEL_FLAG_HELP])
    command.option(withValue(flag), description, { type: [String] });
  command.option(withValue(OTEL_SWITCH_HELP[0]), OTEL_SWITCH_HELP[1]);
  command.example(`${PROGRAM_NAME} proxy --upstream-command node --upstream-arg dist/server.js --scenario F1`);
  command.action(async () => (await import('./proxy-run.js')).runProxy(context.values, context.io));
}
