export {
  DEFAULT_MAX_BODY_BYTES,
  HttpAgentSide,
  MCP_PATH,
  type HttpAgentSideOptions,
  type HttpListenAddress,
} from './http-agent-side.js';
export { DEFAULT_LISTEN_HOST, parseListenAddress } from './listen-address.js';
export { defaultAllowedHosts, HostGuard, isLoopbackHost } from './host-guard.js';
export { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_MS, SessionLimits } from './session-limits.js';
