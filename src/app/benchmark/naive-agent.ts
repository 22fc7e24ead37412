import type { AgentContext } from './agent-context.js';

/**
 * The naive reference agent: sends the write, then re-sends it at once — no key, no check, whatever
 * the first answer was (a double submit, the classic duplicate-booking bug).
 */
export async function naiveRun(context: AgentContext): Promise<void> {
  const args = { ...context.booking };
  await context.call('create_booking', args);
  await context.call('create_booking', args);
}
