/**
 * The default command: the demo MCP server. The server itself lives in `demo-run.ts`, loaded only
 * when the command runs. A word where a command name belongs ("unknown command") is refused in main.ts.
 */
import type { CAC } from 'cac';
import type { CommandContext } from './io.js';

export function defineDemoCommand(cli: CAC, { io }: CommandContext): void {
  cli
    .command('', 'Demo MCP server on stdio (no real backend; a demo, not a measurement)')
    .action(() => import('./demo-run.js').then((m) => m.runDemo(io)));
}
