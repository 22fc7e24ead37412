/**
 * Setup file of the vitest `unit` project, which runs its files without isolation (`isolate: false`): the
 * files of one worker share one module graph and one process, so what a file leaves behind reaches the
 * files after it. After each file this guard fails the file that left any of these different from what the
 * worker started with, naming it: a variable of `process.env`, fast-check's global settings, fake timers,
 * a `process` listener, the working folder, `process.exitCode`, a fault added to the registry. Spies,
 * `vi.stubEnv` and `vi.stubGlobal` are undone first (as the project's `restoreMocks`, `unstubEnvs` and
 * `unstubGlobals` do between tests); a file that mocks modules is refused at once. See
 * docs/development.md, "A unit test leaves no state".
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, expect, vi } from 'vitest';
import { faultKinds } from '../../src/domain/faults/index.js';

const RULE = 'docs/development.md, "A unit test leaves no state"';

// A module mock replaces a module in the graph the worker's other files share (and a module they already
// imported keeps the real one): a file that mocks modules needs its own graph.
const testPath = expect.getState().testPath;
if (testPath !== undefined && /\bvi\.(mock|doMock|unmock|doUnmock|resetModules)\(/.test(readFileSync(testPath, 'utf8')))
  throw new Error(
    `this test file mocks or resets modules, which the unit project shares between the files of a worker: name it *.isolated.test.ts (${RULE})`,
  );

const EVENTS = [
  'exit',
  'beforeExit',
  'uncaughtException',
  'unhandledRejection',
  'warning',
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
] as const;
type Listener = (...args: unknown[]) => void;
/** `process` as a plain emitter: its typed overloads take one event name each. */
const emitter: NodeJS.EventEmitter = process;

interface WorkerState {
  env: Record<string, string | undefined>;
  listeners: Map<string, Listener[]>;
  cwd: string;
  exitCode: typeof process.exitCode;
  faults: string[];
}

function snapshot(): WorkerState {
  return {
    env: { ...process.env },
    listeners: new Map(EVENTS.map((event) => [event, emitter.listeners(event) as Listener[]])),
    cwd: process.cwd(),
    exitCode: process.exitCode,
    faults: faultKinds(),
  };
}

/**
 * What the worker looked like before its first test file; kept on globalThis, which the files of a worker
 * share (this module itself runs again for each file).
 */
const KEY = Symbol.for('harness.unit.leak-guard');
const store = globalThis as unknown as Record<symbol, WorkerState | undefined>;
const start = (store[KEY] ??= snapshot());

const sameList = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Each difference between the worker's start and now, in words. Vitest's own variables (VITEST_WORKER_ID) are not the tests'. */
function leaks(now: WorkerState): string[] {
  const found: string[] = [];
  for (const name of new Set([...Object.keys(start.env), ...Object.keys(now.env)]))
    if (!name.startsWith('VITEST') && start.env[name] !== now.env[name])
      found.push(`process.env.${name} changed (use vi.stubEnv, or restore it in afterEach)`);
  if (Object.keys(fc.readConfigureGlobal()).length > 0)
    found.push("fast-check's global settings changed (pass { numRuns } to fc.assert instead of fc.configureGlobal)");
  if (vi.isFakeTimers()) found.push('fake timers are still installed (call vi.useRealTimers() in afterEach)');
  for (const event of EVENTS)
    if (!sameList(start.listeners.get(event)!, now.listeners.get(event)!))
      found.push(`a process '${event}' listener was added or removed (remove it in afterEach)`);
  if (start.cwd !== now.cwd) found.push('the working folder changed (process.chdir)');
  if (start.exitCode !== now.exitCode) found.push('process.exitCode changed');
  if (!sameList(start.faults, now.faults))
    found.push('the fault registry changed (a file that registers a fault is a *.isolated.test.ts)');
  return found;
}

/** Puts back what can be put back, so that only the file that leaked fails, not every file after it. */
function restore(): void {
  for (const name of Object.keys(process.env)) if (!(name in start.env)) delete process.env[name];
  Object.assign(process.env, start.env);
  fc.resetConfigureGlobal();
  vi.useRealTimers();
  for (const event of EVENTS) {
    const kept = start.listeners.get(event)!;
    for (const listener of emitter.listeners(event) as Listener[])
      if (!kept.includes(listener)) emitter.removeListener(event, listener);
  }
  process.chdir(start.cwd);
  process.exitCode = start.exitCode;
}

afterAll(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  const found = leaks(snapshot());
  if (found.length === 0) return;
  restore();
  throw new Error(`this test file leaves state behind for the files after it in the same worker: ${found.join('; ')} (${RULE})`);
});
