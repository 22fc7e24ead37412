#!/usr/bin/env node
// Layer rules of the hexagon, checked mechanically (run by `npm run check`, so by CI):
//   src/domain   imports only src/domain (no ports, SDK, pino, zod, node:*, no outer layer): it declares what
//                it needs (Clock, RandomSource) itself, and the ports re-export it — one direction only
//   src/ports    imports only src/ports and src/domain
//   src/app      imports only src/app, src/domain and src/ports
//   src/adapters imports no src/cli and no src/app
// and one start-up rule: nothing that `src/cli/bin.ts` or the proxy's wiring (`src/cli/proxy-run.ts`,
// loaded before the upstream is spawned) load statically imports the MCP SDK, zod or pino (type-only and
// dynamic imports excluded): those load after the spawn, while the upstream boots; nor the trial's domain
// (its index, which loads all of it) or the statistics, which no proxy uses.
// and one design rule: a fault is one file, and fault ids are the registry's alone — no code in src/ outside
// src/domain/faults/ has a string that is a fault id or quotes one (`'F1'`, `case 'F2':`, `['F1', 'F2']`, a type
// `'F1' | 'F5'`, `{scenario: "F1"}`; scripts/fault-id-literals.mjs), nor compares a fault with the literal
// `'chaos'`; it asks the registry for what the fault declares (hooks, `tells`, parameters, texts, reference
// verdicts: `faultServing`, `scenarioIds`, `faultOf`) instead.
// and one layout rule: no loose file at the root of src/domain (beyond error-message, json, time-and-chance)
// or src/adapters: each file lives in the folder of its concept.
// and one way to turn a thrown value into text: `errorMessage`, `asError`, `errorCode` of
// src/domain/error-message.ts; the hand-written `e instanceof Error ? e.message : String(e)` (or
// `new Error(String(e))`) and `(e as NodeJS.ErrnoException).code` are refused everywhere else in src/.
// and no command's wiring imports another command's: `src/cli/X-run.ts` (X a command, named by its
// `X-command.ts`) imports no `Y-run.ts` of another command (scripts/command-imports.mjs); what commands share
// is a module that says what it is (`upstream-wiring.ts`, `html-report.ts`, the `--otel` wiring `otel-run.ts`).
// and no import cycle between files of src/ (static, type-only and dynamic imports all count): a command's
// definition and its wiring share a `-flags.ts` file instead of importing each other.
// Exit 1 with one line per violation.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { faultIdLiterals } from './fault-id-literals.mjs';
import { crossCommandImports } from './command-imports.mjs';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const rules = {
  'src/domain': { layers: ['src/domain'], packages: false },
  'src/ports': { layers: ['src/ports', 'src/domain'], packages: false },
  'src/app': { layers: ['src/app', 'src/domain', 'src/ports'], packages: false },
  'src/adapters': { layers: ['src/adapters', 'src/domain', 'src/ports'], packages: true },
};

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

const importPattern = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
const problems = [];
for (const [layer, rule] of Object.entries(rules)) {
  let dir;
  try {
    dir = join(root, layer);
    statSync(dir);
  } catch {
    continue;
  }
  for (const file of files(dir)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(importPattern)) {
      const spec = match[1] ?? match[2];
      const where = relative(root, file);
      if (spec.startsWith('.')) {
        const target = relative(root, resolve(dirname(file), spec));
        if (!rule.layers.some((l) => target === l || target.startsWith(l + '/'))) {
          problems.push(`${where}: imports ${spec} (${target}), outside ${rule.layers.join(', ')}`);
        }
      } else if (!rule.packages) {
        problems.push(`${where}: imports package ${spec}; ${layer} must stay framework-free`);
      }
    }
  }
}
// OpenTelemetry loads only with --otel (a dynamic import of src/adapters/otel/), never at start-up.
const LATE_PACKAGES = ['@modelcontextprotocol/sdk', 'zod', 'pino', '@opentelemetry'];
const LATE_FOLDERS = ['src/domain/trial/index.ts', 'src/domain/statistics/'];
const staticImport = /(?:^|\n)\s*(import|export)\s(?!type\s)[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;
const pending = ['src/cli/bin.ts', 'src/cli/proxy-run.ts'].map((file) => join(root, file));
const loaded = new Set(pending);
while (pending.length > 0) {
  const file = pending.pop();
  for (const match of readFileSync(file, 'utf8').matchAll(staticImport)) {
    const spec = match[2] ?? match[3];
    if (spec.startsWith('.')) {
      const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
      const late = LATE_FOLDERS.find((folder) => relative(root, target).startsWith(folder));
      if (late !== undefined)
        problems.push(`start-up: ${relative(root, file)} imports ${spec} statically; the proxy needs nothing of ${late}`);
      else if (!loaded.has(target)) {
        loaded.add(target);
        pending.push(target);
      }
    } else if (LATE_PACKAGES.some((p) => spec === p || spec.startsWith(p + '/'))) {
      problems.push(`start-up: ${relative(root, file)} imports ${spec} statically; it must load after the upstream is spawned`);
    }
  }
}

// Chaos is the one fault whose id is a word; the literal ids F1, F2, … are refused outright below.
const ID = `['"]chaos['"]`;
const FAULT_ID_BRANCH = new RegExp(
  `[!=]==\\s*${ID}|${ID}\\s*[!=]==|case\\s+${ID}|\\.(?:has|includes|indexOf)\\(\\s*${ID}|${ID}\\s*,\\s*${ID}`,
);
// Chaos is also a mode (`--mode chaos`): comparing a mode with it is not about a fault id.
const MODE_CHAOS = /\bmode\s*[!=]==\s*['"]chaos['"]/g;
for (const file of files(join(root, 'src'))) {
  const where = relative(root, file);
  if (where.startsWith('src/domain/faults/')) continue;
  const text = readFileSync(file, 'utf8');
  text.split('\n').forEach((line, index) => {
    const code = line.replace(/\/\/.*$/, '').replace(MODE_CHAOS, '');
    if (FAULT_ID_BRANCH.test(code)) {
      problems.push(
        `fault ids: ${where}:${index + 1} compares a fault with chaos or lists it; declare it in the fault's file in src/domain/faults/ instead`,
      );
    }
  });
  for (const { line, text: literal } of faultIdLiterals(text, file)) {
    problems.push(
      `fault ids: ${where}:${line} names a fault id in a string (${literal}); ask the fault registry (src/domain/faults/index.ts) for the fault by what it declares, or take the id from it`,
    );
  }
}

// Thrown values: the helpers of src/domain/error-message.ts, never the hand-written ternary or cast.
const HAND_WRITTEN_ERROR = /instanceof Error\s*\?[^;]*\bString\(|\(\w+ as NodeJS\.ErrnoException\)\.code/;
for (const file of files(join(root, 'src'))) {
  const where = relative(root, file);
  if (where === 'src/domain/error-message.ts') continue;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (HAND_WRITTEN_ERROR.test(line.replace(/\/\/.*$/, ''))) {
        problems.push(
          `thrown values: ${where}:${index + 1} turns a thrown value into text by hand; use errorMessage, asError or errorCode from src/domain/error-message.ts`,
        );
      }
    });
}

// The layout: the roots of src/domain and src/adapters hold folders named after concepts, not piles of files;
// the domain's root keeps only what every folder of it uses.
const LOOSE_FILES = {
  'src/domain': ['error-message.ts', 'json.ts', 'time-and-chance.ts'],
  'src/adapters': [],
};
for (const [folder, allowed] of Object.entries(LOOSE_FILES)) {
  for (const name of readdirSync(join(root, folder))) {
    if (statSync(join(root, folder, name)).isDirectory() || allowed.includes(name)) continue;
    problems.push(
      `layout: ${folder}/${name} is loose at the root of ${folder}; put it in the folder of its concept (docs/architecture.md)`,
    );
  }
}

// A command's wiring imports no other command's.
const cliDir = join(root, 'src/cli');
const cliFiles = readdirSync(cliDir);
for (const name of cliFiles.filter((file) => file.endsWith('.ts'))) {
  for (const { spec, command } of crossCommandImports(name, readFileSync(join(cliDir, name), 'utf8'), cliFiles)) {
    problems.push(
      `command wiring: src/cli/${name} imports ${spec}, the wiring of \`${command}\`; move what both use to a module of its own in src/cli/`,
    );
  }
}

// Import cycles: the strongly connected components of the file graph (Tarjan), each named once.
const graph = new Map();
for (const file of files(join(root, 'src'))) {
  const targets = [];
  for (const match of readFileSync(file, 'utf8').matchAll(importPattern)) {
    const spec = match[1] ?? match[2];
    if (!spec.startsWith('.')) continue;
    const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
    if (existsSync(target)) targets.push(target);
  }
  graph.set(file, targets);
}
const order = new Map();
const lowest = new Map();
const onStack = new Set();
const stack = [];
function visit(file) {
  order.set(file, order.size);
  lowest.set(file, order.get(file));
  stack.push(file);
  onStack.add(file);
  for (const target of graph.get(file) ?? []) {
    if (!order.has(target)) {
      visit(target);
      lowest.set(file, Math.min(lowest.get(file), lowest.get(target)));
    } else if (onStack.has(target)) lowest.set(file, Math.min(lowest.get(file), order.get(target)));
  }
  if (lowest.get(file) !== order.get(file)) return;
  const component = [];
  let member;
  do {
    member = stack.pop();
    onStack.delete(member);
    component.push(relative(root, member));
  } while (member !== file);
  if (component.length > 1) problems.push(`import cycle: ${component.sort().join(' <-> ')}`);
}
for (const file of graph.keys()) if (!order.has(file)) visit(file);

if (problems.length > 0) {
  for (const p of problems) console.error(`layer rule: ${p}`);
  process.exit(1);
}
console.log('layer rules: ok');
