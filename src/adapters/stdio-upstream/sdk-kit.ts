/**
 * What the stdio upstream adapter needs from the MCP SDK at run time, in one module that
 * `StdioUpstreamSide` imports only after it has spawned the process: the SDK and zod (~230 ms of module
 * loading) then load while the upstream boots, not before it is started.
 */
export { ClientConnection } from '../upstream-core/client-connection.js';
export { ProcessTransport } from './process-transport.js';
export { describeStartFailure } from './start-failure.js';
