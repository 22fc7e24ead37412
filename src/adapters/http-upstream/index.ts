/** The HTTP upstream adapter: the real MCP server behind a URL (Streamable HTTP, legacy SSE fallback). */
export { HttpUpstreamSide, type HttpUpstreamOptions } from './http-upstream-side.js';
export { parseHeaderFlags, type Environment } from './headers.js';
