/**
 * The largest single MCP message the proxy reads from either side: about 10 MB, the MCP SDK's own limit
 * (the description: a larger message from the agent ends the session; a larger answer from the upstream
 * cuts the connection to it).
 */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
