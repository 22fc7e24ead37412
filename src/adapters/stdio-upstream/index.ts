/** The stdio upstream adapter: spawns the real MCP server and forwards to it verbatim. */
export { StdioUpstreamSide, type StdioUpstreamOptions } from './stdio-upstream-side.js';
export { StderrTail } from './stderr-tail.js';
