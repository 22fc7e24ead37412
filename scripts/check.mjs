/**
 * `npm run check`: the type check, the layer rules, eslint and prettier, run side by side (they are
 * independent; on two cores this takes the time of the slowest, eslint's type-aware pass, instead of the
 * sum). Each one's output is printed whole once it ends, then a line per check; exit 1 if any failed.
 */
import { spawn } from 'node:child_process';

const CHECKS = [
  ['types', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']],
  ['layers', process.execPath, ['scripts/check-layers.mjs']],
  ['lint', 'npx', ['eslint', '.']],
  ['format', 'npx', ['prettier', '--check', '--log-level', 'warn', '**/*.{ts,mts,mjs,js}']],
];

function run([name, command, args]) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ name, ok: false, output: `${output}${error.message}\n`, ms: Date.now() - started }));
    child.on('close', (code) => resolve({ name, ok: code === 0, output, ms: Date.now() - started }));
  });
}

const results = await Promise.all(CHECKS.map(run));
for (const { name, ok, output } of results) {
  if (output.trim() !== '') process.stdout.write(`--- ${name}${ok ? '' : ' (FAILED)'}\n${output.trimEnd()}\n`);
}
for (const { name, ok, ms } of results)
  process.stdout.write(`check ${name}: ${ok ? 'ok' : 'FAILED'} (${(ms / 1000).toFixed(1)} s)\n`);
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
