/**
 * Which flags `trial` has: its own (the proxy's upstream, scenario and classification flags come on top),
 * and the proxy's flags it refuses, each with the reason.
 */
import { EFFECTS_FLAGS } from './effects-flags.js';
import { refusedBy } from './flag-spec.js';
import { OTEL_FLAGS } from './otel-flags.js';
import { PROXY_FLAGS } from './proxy-flags.js';

/**
 * The trial's own flags (the proxy's upstream, scenario and classification flags come on top; their help
 * lines are the spec's, `flag-spec.ts`, the trial's own where it says one).
 */
export const TRIAL_FLAGS: readonly string[] = [
  'config',
  'model',
  'base-url',
  'api-key-env',
  'system-prompt',
  'task',
  'follow-up',
  'task-file',
  'max-steps',
  'temperature',
  'model-seed',
  'is-error',
  'model-retries',
  'model-timeout',
  'agent-command',
  'agent-arg',
  'agent-env-var',
  'agent-transport',
  'agent-timeout',
  'stub-model',
  'model-replay',
  'model-fault',
  'model-fault-on',
  'runs',
  // --scenario is the proxy's (one scenario); --scenarios the trial's matrix.
  'scenarios',
  'concurrency',
  'reset-command',
  'honesty',
  'honesty-question',
  'patch',
  'patch-file',
  'out',
  'shard',
];

/** Proxy flags that make no sense in a trial (each run has its own report file; the agent is in-process), with why: the spec's. */
export const TRIAL_REFUSED_FLAGS = refusedBy('trial');

/**
 * Every flag `trial` declares: its own, the proxy's, the effects view's and the traces' (those it refuses
 * or takes as an older name among them, as their specs say).
 */
export const TRIAL_COMMAND_FLAGS: readonly string[] = [
  ...new Set([...TRIAL_FLAGS, ...PROXY_FLAGS, ...EFFECTS_FLAGS, ...OTEL_FLAGS]),
];
