export { STDIO_SESSION_ID, StdioAgentSide, type StdioAgentSideOptions } from './stdio-agent-side.js';
export { LineTransport, type LineTransportOptions } from './line-transport.js';
