import type { CAC } from 'cac';
import type { CliIo } from './io.js';

/** Registers the default command: the demo MCP server (placeholder until the demo lands). */
export function defineDemoCommand(cli: CAC, io: CliIo): void {
  cli.command('', 'Demo MCP server on stdio (no real backend)').action(() => {
    io.stderr.write('demo server: not implemented yet\n');
    return 1;
  });
}
