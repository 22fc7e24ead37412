/**
 * `trial-relay <url>`: the stdio MCP server command that `trial --agent-transport stdio` gives the user's
 * agent program (CUONZTECH_MCP_COMMAND/ARGS); it relays to that run's endpoint. Not meant to be typed.
 */
import type { CAC } from 'cac';
import type { CommandContext } from './io.js';
import { UsageError } from './errors.js';

export function defineTrialRelayCommand(cli: CAC, context: CommandContext): void {
  cli
    .command('trial-relay <url>', "(used by trial) stdio MCP server relaying to a trial run's endpoint")
    .action(async (url: string) => {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        throw new UsageError(`trial-relay needs the run's MCP URL, got "${url}"`);
      }
      if (target.protocol !== 'http:') throw new UsageError(`trial-relay needs an http URL, got "${url}"`);
      const { relayStdioToHttp } = await import('../adapters/trial-relay/index.js');
      return relayStdioToHttp(target, context.io);
    });
}
