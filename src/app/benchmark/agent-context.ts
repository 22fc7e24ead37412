/**
 * What a reference agent of the benchmark gets to play one run with: the booking it is asked for,
 * its idempotency key, a way to call a tool through the harness and to wait. The agents' scripts
 * (`careful-agent.ts`, `naive-agent.ts`, `patient-agent.ts`) and the run (`scenario-run.ts`) use it; the agents' list
 * (`reference-agents.ts`) imports the scripts, so the shape lives apart from both.
 */
import type { ToolCallResult } from '../../ports/shapes/mcp-shapes.js';

/** The booking a run asks for (the same operation in every attempt of the run). */
export interface BookingRequest {
  guest: string;
  date: string;
  room: string;
  nights: number;
}

/** What a reference agent can do during one run. */
export interface AgentContext {
  /** The booking the user asked for. */
  readonly booking: BookingRequest;
  /** A fresh idempotency key for this run (only the careful agent sends one). */
  readonly key: string;
  /** Sends one `tools/call` through the harness (after the run's jitter delay); resolves with the answer. */
  call(tool: string, args: Record<string, unknown>): Promise<ToolCallResult>;
  /** Waits, in virtual time; resolves once what lands meanwhile (F6's late write) has reached the backend. */
  wait(ms: number): Promise<void>;
}
