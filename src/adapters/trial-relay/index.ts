export { relayStdioToHttp, type RelayIo } from './stdio-http-relay.js';
