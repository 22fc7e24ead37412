/**
 * The default command: the demo MCP server. The server itself lives in `demo-run.ts`, loaded only
 * when the command runs.
 */
import type { CAC } from 'cac';
import { UsageError } from './errors.js';
import type { CommandContext } from './io.js';

export function defineDemoCommand(cli: CAC, { io }: CommandContext): void {
  cli.command('', 'Demo MCP server on stdio (no real backend; a demo, not a measurement)').action(() => {
    if (cli.args.length > 0) {
      throw new UsageError(`unknown command "${cli.args[0]}"; commands: proxy, benchmark (none = demo MCP server); see --help`);
    }
    return import('./demo-run.js').then((m) => m.runDemo(io));
  });
}

