export type { Clock } from './clock.port.js';
export type { RandomSource } from './random.port.js';
export type { Timer } from './timer.port.js';
export type { ToolCallRequest, ToolCallResult, ToolDescriptor } from './mcp-shapes.js';
export type { UpstreamCallOptions, UpstreamCallOutcome, UpstreamExit, UpstreamInfo, UpstreamSide } from './upstream-side.port.js';
export type { AgentCloseReason, AgentSessionHandler, AgentSide, AgentSideOptions } from './agent-side.port.js';
export type { ReportDocument, ReportSink } from './report-sink.port.js';
export type { Logger } from './logger.port.js';
