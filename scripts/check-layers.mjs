#!/usr/bin/env node
// Layer rules of the hexagon, checked mechanically (run by `npm run check`, so by CI):
//   src/domain   imports only src/domain (no ports, SDK, pino, zod, node:*, no outer layer): it declares what
//                it needs (Clock, RandomSource) itself, and the ports re-export it — one direction only
//   src/ports    imports only src/ports and src/domain
//   src/app      imports only src/app, src/domain and src/ports
//   src/adapters imports no src/cli and no src/app
// and one start-up rule: nothing that `src/cli/bin.ts` or the proxy's wiring (`src/cli/proxy-run.ts`,
// loaded before the upstream is spawned) load statically imports the MCP SDK, zod or pino (type-only and
// dynamic imports excluded): those load after the spawn, while the upstream boots.
// and one design rule: faults own their behaviour — nothing in the domain outside src/domain/faults/, nor the
// call pipeline, branches on a fault id (`=== 'F1'`, `case 'F2':`); they read the fault's hooks instead.
// Exit 1 with one line per violation.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';

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
const LATE_PACKAGES = ['@modelcontextprotocol/sdk', 'zod', 'pino'];
const staticImport = /(?:^|\n)\s*(import|export)\s(?!type\s)[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;
const pending = ['src/cli/bin.ts', 'src/cli/proxy-run.ts'].map((file) => join(root, file));
const loaded = new Set(pending);
while (pending.length > 0) {
  const file = pending.pop();
  for (const match of readFileSync(file, 'utf8').matchAll(staticImport)) {
    const spec = match[2] ?? match[3];
    if (spec.startsWith('.')) {
      const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
      if (!loaded.has(target)) {
        loaded.add(target);
        pending.push(target);
      }
    } else if (LATE_PACKAGES.some((p) => spec === p || spec.startsWith(p + '/'))) {
      problems.push(`start-up: ${relative(root, file)} imports ${spec} statically; it must load after the upstream is spawned`);
    }
  }
}

const FAULT_ID_BRANCH =
  /(?:[!=]==\s*['"](?:F[1-9]\d*|chaos)['"]|['"](?:F[1-9]\d*|chaos)['"]\s*[!=]==|case\s+['"](?:F[1-9]\d*|chaos)['"])/;
for (const folder of ['src/domain', 'src/app/pipeline', 'src/app/proxy']) {
  for (const file of files(join(root, folder))) {
    const where = relative(root, file);
    if (where.startsWith('src/domain/faults/')) continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        const code = line.replace(/\/\/.*$/, '');
        if (FAULT_ID_BRANCH.test(code) && !/\.mode\s*[!=]==\s*['"]chaos['"]/.test(code)) {
          problems.push(
            `fault ids: ${where}:${index + 1} branches on a fault id; give the fault a hook in src/domain/faults/ instead`,
          );
        }
      });
  }
}

if (problems.length > 0) {
  for (const p of problems) console.error(`layer rule: ${p}`);
  process.exit(1);
}
console.log('layer rules: ok');
