/**
 * Scripted agents for the e2e tests, playing the two reference behaviours of the product description
 * against a real proxy (any `{ call }`, usually a `ProxyRun`):
 * - CAREFUL follows the GHOST_WRITE patch: one write with an idempotency key; after a failure it
 *   checks with a read that finds the record without an id; found → stop; really missing → retry ONCE
 *   with the same key; cannot check → stop; a 429 → stop, or wait out retry_after and retry once.
 * - NAIVE re-sends every write immediately, without a key and without looking at the first answer
 *   ("re-sends every write immediately, no key"); `parallel` sends both copies at the same moment.
 * Every call and what the agent saw is kept in the trace, so a test can assert the agent-visible texts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cleanup, startProxy, textOf, type ProxyRun, type ReportFile, type StartOptions } from './proxy-harness.js';

/** What an agent needs from the run: a way to call a tool. */
export type ToolCaller = Pick<ProxyRun, 'call'>;

/** One call the agent made and the answer it got. */
export interface AgentStep {
  tool: string;
  args: Record<string, unknown>;
  result: CallToolResult;
}

/** The read a careful agent uses to find the record without an id it never received. */
export interface RecordCheck {
  tool: string;
  args: Record<string, unknown>;
  /** Whether a successful answer of the check shows the record. */
  found(result: CallToolResult): boolean;
}

/** A write the agent is asked to do, and how it can look for the record afterwards. */
export interface WriteTask {
  tool: string;
  /** The write's arguments without any key field. */
  args: Record<string, unknown>;
  /** The key field the careful agent adds (field name and value); none when the tool takes no key. */
  key?: { field: string; value: string };
  check: RecordCheck;
}

/** How a careful agent's task ended. */
export type CarefulEnding =
  'succeeded' | 'found-after-failure' | 'retried-once' | 'stopped-after-rate-limit' | 'waited-and-retried' | 'cannot-check';

/** What an agent did: its calls in order and how it ended. */
export interface AgentTrace<E extends string = string> {
  steps: AgentStep[];
  ending: E;
}

/** Options of the careful agent. */
export interface CarefulOptions {
  /** After a 429, wait retry_after (plus a margin) and retry once, instead of stopping. */
  honourRetryAfter?: boolean;
}

/** The margin a careful agent adds to retry_after, so its wait as measured by the proxy is longer. */
export const RETRY_AFTER_MARGIN_MS = 300;

/** Calls a tool and appends the step to `steps`. */
async function step(agent: ToolCaller, steps: AgentStep[], tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const result = await agent.call(tool, args);
  steps.push({ tool, args, result });
  return result;
}

/** The seconds of a `retry_after` announced in a result's text, or null when there is none. */
export function retryAfterSecondsOf(result: CallToolResult): number | null {
  const match = /retry_after"?\s*:\s*(\d+)/.exec(textOf(result));
  return match === null ? null : Number(match[1]);
}

/** Plays the careful agent on one write task. */
export async function carefulAgent(
  agent: ToolCaller,
  task: WriteTask,
  options: CarefulOptions = {},
): Promise<AgentTrace<CarefulEnding>> {
  const steps: AgentStep[] = [];
  const args = task.key === undefined ? { ...task.args } : { ...task.args, [task.key.field]: task.key.value };
  const first = await step(agent, steps, task.tool, args);
  if (first.isError !== true) return { steps, ending: 'succeeded' };
  const retryAfter = retryAfterSecondsOf(first);
  if (retryAfter !== null) {
    if (options.honourRetryAfter !== true) return { steps, ending: 'stopped-after-rate-limit' };
    await sleep(retryAfter * 1000 + RETRY_AFTER_MARGIN_MS);
    await step(agent, steps, task.tool, args);
    return { steps, ending: 'waited-and-retried' };
  }
  const check = await step(agent, steps, task.check.tool, task.check.args);
  if (check.isError === true) return { steps, ending: 'cannot-check' };
  if (task.check.found(check)) return { steps, ending: 'found-after-failure' };
  await step(agent, steps, task.tool, args);
  return { steps, ending: 'retried-once' };
}

/** Options of the naive agent. */
export interface NaiveOptions {
  /** Send both copies at the same moment instead of re-sending right after the first answer. */
  parallel?: boolean;
}

/** Plays the naive agent: the write (never a key) is sent twice, whatever the first answer was. */
export async function naiveAgent(
  agent: ToolCaller,
  task: WriteTask,
  options: NaiveOptions = {},
): Promise<AgentTrace<'sent-twice'>> {
  const steps: AgentStep[] = [];
  const args = { ...task.args };
  if (options.parallel === true) {
    await Promise.all([step(agent, steps, task.tool, args), step(agent, steps, task.tool, args)]);
  } else {
    await step(agent, steps, task.tool, args);
    await step(agent, steps, task.tool, args);
  }
  return { steps, ending: 'sent-twice' };
}

/** A result's first text block parsed as JSON; undefined when it is not JSON. */
export function jsonOfResult(result: CallToolResult): unknown {
  try {
    return JSON.parse(textOf(result)) as unknown;
  } catch {
    return undefined;
  }
}

/** Booking one room at the bundled booking server; the check is `search_bookings` by guest and date. */
export function bookingTask(guest: string, date: string, key = `key-${guest}-${date}`): WriteTask {
  return {
    tool: 'create_booking',
    args: { guest, date },
    key: { field: 'idempotency_key', value: key },
    check: {
      tool: 'search_bookings',
      args: { guest, date },
      found: (result) => {
        const hits = jsonOfResult(result);
        return (
          Array.isArray(hits) && hits.some((hit: { guest?: unknown; date?: unknown }) => hit.guest === guest && hit.date === date)
        );
      },
    },
  };
}

/** Creating one entity in `@modelcontextprotocol/server-memory`; the check is `search_nodes` by name. */
export function memoryEntityTask(name: string, entityType = 'person', observations: string[] = []): WriteTask {
  return {
    tool: 'create_entities',
    args: { entities: [{ name, entityType, observations }] },
    check: {
      tool: 'search_nodes',
      args: { query: name },
      found: (result) => {
        const graph = result.structuredContent as { entities?: Array<{ name?: unknown }> } | undefined;
        return graph?.entities?.some((entity) => entity.name === name) === true;
      },
    },
  };
}

/** Ends the agent's session (stdin EOF, the proxy exits) and answers the final report file. */
export async function endSession(run: ProxyRun): Promise<ReportFile> {
  await run.stop();
  return run.report();
}

/** The report's `scenario` block, which `ReportFile` leaves untyped. */
export function scenarioOf(report: ReportFile): { id: string | null; triggered: boolean; faultsApplied: number } {
  return (report.report as unknown as { scenario: { id: string | null; triggered: boolean; faultsApplied: number } }).scenario;
}

/** Starts a proxy, runs `body` against it, and always stops it and removes its temp folder. */
export async function withProxy<T>(options: StartOptions, body: (run: ProxyRun) => Promise<T>): Promise<T> {
  const run = await startProxy(options);
  try {
    return await body(run);
  } finally {
    await run.stop();
    cleanup(run);
  }
}
