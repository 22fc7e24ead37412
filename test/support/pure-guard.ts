/**
 * Setup file of the pure vitest projects (`unit`, `unit-isolated`, `scale`): a unit test is pure, it neither
 * starts a process nor opens a listening socket. Either throws here, naming where the test belongs, so a
 * process or a server cannot slip back into the projects that run in seconds. Tests that need them live in `test/integration/` (or `e2e/`
 * when they run the compiled CLI). See docs/architecture.md, "Where a test lives".
 */
import { ChildProcess } from 'node:child_process';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { Server } from 'node:net';

/** The module objects themselves (an ESM namespace cannot be written to); their named exports follow them. */
const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>;

function refuse(what: string): never {
  throw new Error(
    `a unit test ${what}: unit tests are pure (no process, no listening socket); ` +
      'move the test to test/integration/ (or e2e/ when it runs the compiled CLI)',
  );
}

// Installed again for every test file (cheap, idempotent).
{
  // Every asynchronous way to start a process (spawn, exec, execFile, fork, cross-spawn, execa, the SDK's
  // stdio client) ends in ChildProcess.prototype.spawn; the synchronous ones are the three exports.
  (ChildProcess.prototype as unknown as Record<string, unknown>)['spawn'] = () => refuse('started a process');
  for (const name of ['spawnSync', 'execSync', 'execFileSync']) childProcess[name] = () => refuse('started a process');
  syncBuiltinESMExports();
  // http, https and the SDK's HTTP servers are net.Servers.
  Server.prototype.listen = () => refuse('opened a listening socket');
}
