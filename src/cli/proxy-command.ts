/**
 * `proxy`: the command definition. The wiring lives in `proxy-run.ts`, loaded only when the command runs,
 * so `--help`, `--version` and the other commands do not pay for the adapters' dependencies.
 */
import type { CAC } from 'cac';
import { PROGRAM_NAME } from '../version.js';
import type { CommandContext } from './io.js';
import { declareFlags } from './help.js';
import { EFFECTS_FLAGS } from './effects-flags.js';
import { PROXY_FLAGS } from './proxy-flags.js';
import { OTEL_FLAGS } from './otel-flags.js';

export function defineProxyCommand(cli: CAC, context: CommandContext): void {
  const command = cli.command('proxy', 'Chaos proxy in front of your MCP server (stdio or HTTP)');
  declareFlags(command, [...PROXY_FLAGS, ...EFFECTS_FLAGS, ...OTEL_FLAGS]);
  command.example(`${PROGRAM_NAME} proxy --upstream-command node --upstream-arg dist/server.js --scenario F1`);
  command.action(async () => (await import('./proxy-run.js')).runProxy(context.values, context.io));
}
