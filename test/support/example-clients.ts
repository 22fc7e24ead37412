/**
 * The official model clients from npm (`openai`, `@anthropic-ai/sdk`), installed in the example agents'
 * own package (`examples/agents/package.json`, never the harness's dependencies). The README's test
 * command installs it: `npm ci --prefix examples/agents --ignore-scripts`.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const AGENTS = resolve(import.meta.dirname, '../../examples/agents');

export function requireExample<T>(name: string): T {
  if (!existsSync(join(AGENTS, 'node_modules', name)))
    throw new Error(`${name} is not installed in examples/agents: run npm ci --prefix examples/agents --ignore-scripts`);
  const required = createRequire(join(AGENTS, 'package.json'))(name) as { default?: T } & T;
  return required.default ?? required;
}

/**
 * Why the example agent programs cannot run here (their package is not installed), or null when they can.
 * Their tests skip with this message rather than fail: the harness itself does not need them.
 */
export function exampleAgentsMissing(): string | null {
  return existsSync(join(AGENTS, 'node_modules'))
    ? null
    : 'examples/agents is not installed: run npm ci --prefix examples/agents --ignore-scripts';
}

/** Fails with the install command when an example package is not installed (an install older than its lockfile). */
export function requireExamplePackages(names: readonly string[]): void {
  const absent = names.filter((name) => !existsSync(join(AGENTS, 'node_modules', name, 'package.json')));
  if (absent.length > 0)
    throw new Error(
      `${absent.join(', ')} not installed in examples/agents: run npm ci --prefix examples/agents --ignore-scripts`,
    );
}
