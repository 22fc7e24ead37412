export { InMemoryAgentSide, type InMemoryAgentConnection } from './in-memory-agent-side.js';
