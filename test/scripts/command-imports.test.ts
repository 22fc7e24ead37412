/**
 * The check rule "no command's wiring imports another command's" (scripts/command-imports.mjs, run by
 * `npm run check` over src/cli/, issue 37 §2): which imports it refuses and which it leaves alone.
 */
import { describe, expect, it } from 'vitest';
import { crossCommandImports } from '../../scripts/command-imports.mjs';

const CLI = [
  'proxy-command.ts',
  'proxy-run.ts',
  'trial-command.ts',
  'trial-run.ts',
  'check-command.ts',
  'check-run.ts',
  'otel-run.ts',
  'upstream-wiring.ts',
];
const specs = (file: string, text: string) => crossCommandImports(file, text, CLI).map((found) => found.spec);

describe("npm run check refuses a command's wiring that imports another command's", () => {
  it("a static, type-only or dynamic import of another command's -run file", () => {
    const source = [
      "import { createUpstream } from './proxy-run.js';",
      "import type { Replay } from './proxy-run.js';",
      "const html = await import('./check-run.js');",
      "export { runCheckCommand } from './check-run.js';",
    ].join('\n');
    expect(specs('trial-run.ts', source)).toEqual(['./proxy-run.js', './proxy-run.js', './check-run.js', './check-run.js']);
    expect(crossCommandImports('trial-run.ts', "import { x } from './proxy-run.js';", CLI)).toEqual([
      { spec: './proxy-run.js', command: 'proxy' },
    ]);
  });

  it('leaves shared modules, its own command, files that are no command and non-wiring files alone', () => {
    const source = [
      "import { createUpstream } from './upstream-wiring.js';",
      "import { startTracer } from './otel-run.js';",
      "import { parseProxyFlags } from './proxy-flags.js';",
      "const own = await import('./trial-run.js');",
      "import { x } from '../app/trial/trial-run.js';",
    ].join('\n');
    expect(specs('trial-run.ts', source)).toEqual([]);
    // The definition loads its own wiring; a shared module is no command's wiring.
    expect(specs('proxy-command.ts', "const run = await import('./proxy-run.js');")).toEqual([]);
    expect(specs('upstream-wiring.ts', "import { x } from './proxy-run.js';")).toEqual([]);
    expect(specs('otel-run.ts', "import { x } from './proxy-run.js';")).toEqual([]);
  });
});
