/**
 * What the stdio upstream adapter needs from the MCP SDK at run time, in one module that
 * `StdioUpstreamSide` imports only after it has spawned the process: the SDK and zod (~230 ms of module
 * loading) then load while the upstream boots, not before it is started.
 */
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
export { outcomeOfFailure } from './call-outcome.js';
export { ProcessTransport } from './process-transport.js';
export { describeStartFailure } from './start-failure.js';
