/**
 * The task file (`--task-file`, JSON or YAML, already parsed into plain values by the CLI): several
 * tasks, each with its own first message, follow-ups, system prompt and step limit; top-level values are
 * the defaults. Both snake_case and camelCase keys are read.
 *
 *   system_prompt: You are a hotel booking assistant.
 *   max_steps: 10
 *   tasks:
 *     - id: book
 *       task: Book a standard room for Ann Lee on 2026-05-01.
 *       follow_ups: [Please try again.]
 *
 * A top-level list is the list of tasks.
 */
import type { TrialTask } from './trial-plan.js';

export interface TaskDefaults {
  systemPrompt: string | undefined;
  maxSteps: number;
}

function field(object: Record<string, unknown>, snake: string, camel: string): unknown {
  return Object.hasOwn(object, snake) ? object[snake] : Object.hasOwn(object, camel) ? object[camel] : undefined;
}

function text(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new Error(`${where} must be a non-empty text`);
  return value;
}

function steps(value: unknown, where: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 1000)
    throw new Error(`${where} must be an integer from 1 to 1000`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validates a parsed task file; throws an Error with a one-line reason. */
export function tasksFromFile(parsed: unknown, defaults: TaskDefaults): TrialTask[] {
  const top = isObject(parsed) ? parsed : {};
  const list = Array.isArray(parsed) ? parsed : top['tasks'];
  if (!Array.isArray(list) || list.length === 0)
    throw new Error('the task file needs a non-empty list "tasks" (or is itself a list of tasks)');
  const systemPrompt = text(field(top, 'system_prompt', 'systemPrompt'), 'system_prompt') ?? defaults.systemPrompt;
  const maxSteps = steps(field(top, 'max_steps', 'maxSteps'), 'max_steps') ?? defaults.maxSteps;
  const ids = new Set<string>();
  return list.map((entry, i) => {
    const where = `tasks[${i}]`;
    const item: Record<string, unknown> = typeof entry === 'string' ? { task: entry } : isObject(entry) ? entry : {};
    if (!isObject(entry) && typeof entry !== 'string') throw new Error(`${where} must be a text or an object with "task"`);
    const task = text(item['task'], `${where}.task`);
    if (task === undefined) throw new Error(`${where}.task is missing`);
    const id = text(item['id'], `${where}.id`) ?? `task${i + 1}`;
    if (!/^[A-Za-z0-9_.-]{1,40}$/.test(id))
      throw new Error(`${where}.id must be 1–40 letters, digits, "_", "." or "-", got ${JSON.stringify(id)}`);
    if (ids.has(id)) throw new Error(`${where}.id ${JSON.stringify(id)} is used twice`);
    ids.add(id);
    const followRaw = field(item, 'follow_ups', 'followUps');
    if (followRaw !== undefined && followRaw !== null && !Array.isArray(followRaw))
      throw new Error(`${where}.follow_ups must be a list of texts`);
    const followUps = (Array.isArray(followRaw) ? followRaw : []).map((f, j) => text(f, `${where}.follow_ups[${j}]`)!);
    return {
      id,
      systemPrompt: text(field(item, 'system_prompt', 'systemPrompt'), `${where}.system_prompt`) ?? systemPrompt,
      task,
      followUps,
      maxSteps: steps(field(item, 'max_steps', 'maxSteps'), `${where}.max_steps`) ?? maxSteps,
    };
  });
}
