/** What `node <file>` prints on stderr when the file does not exist (Node 20), for the stderr-reason tests. */
export function nodeModuleNotFound(file: string): string {
  return [
    'node:internal/modules/cjs/loader:1228',
    '  throw err;',
    '  ^',
    '',
    `Error: Cannot find module '${file}'`,
    '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)',
    '    at node:internal/main/run_main_module:28:49 {',
    "  code: 'MODULE_NOT_FOUND',",
    '  requireStack: []',
    '}',
    '',
    'Node.js v20.20.2',
    '',
  ].join('\n');
}
