/**
 * The command line's bundle (`npm run build`, after `tsc`): `dist/cli/bin.js` and its chunks, built with
 * rolldown from tsc's output (`dist/src/cli/bin.js`). Every package stays an import (the MCP SDK, zod, cac
 * … are loaded from node_modules as before); only the project's own modules are joined, a chunk per
 * dynamically imported part, so a command still loads only what it runs. Node 20 loads each ES module
 * separately (resolve, read, compile, link), and the proxy reads about 120 of its own before it answers:
 * joined, its start-up is about 30 ms shorter (docs/measurements.md). The chunks lie beside `bin.js`,
 * so a module that finds `./bin.js` beside itself (trial and replay start the CLI again) still does.
 */
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist/cli');

rmSync(out, { recursive: true, force: true });
await build({
  input: { bin: join(root, 'dist/src/cli/bin.js') },
  platform: 'node',
  // Packages and node: built-ins are imported at run time, never copied into the bundle.
  external: (id, _importer, isResolved) => !isResolved && !id.startsWith('.'),
  output: { dir: out, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
  logLevel: 'warn',
});
