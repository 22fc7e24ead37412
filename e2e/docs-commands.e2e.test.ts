/**
 * Every shell command the README and docs/ show really works: each `sh` / `bash` / `console` block runs
 * with `sh -e` against the compiled CLI (docs/development.md, "Commands in the docs", has the
 * convention). The blocks of one page run in order in one scratch folder of their own, so a page can make
 * what its later blocks use. The scratch folder holds what the pages name: `dist/`, `examples/`, `e2e/`,
 * `node_modules/` of this repository, `server.js` (the bundled booking server) and `my-agent.js` (the
 * example agent, `examples/agents/sdk-agent.mjs`), and `cuonztech-agent-harness` is on the PATH (the
 * compiled CLI, as after installing the tarball). Blocks marked `<!-- not run: … -->` are listed with
 * their reason. New pages under docs/ are picked up by themselves. A file of the `examples` project (`npm run
 * test:examples`, which `.ci/run` runs after `npm test`); what the blocks promise without running them is
 * checked in `npm test` by test/docs-blocks.test.ts.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../test/fixtures/model-server/model-server.js';
import { allBlocks, type DocBlock } from '../test/support/doc-blocks.js';
import { BIN, requireBuild, ROOT } from '../test/support/proxy-harness.js';

const blocks = allBlocks(ROOT);
const scratch = mkdtempSync(join(tmpdir(), 'harness-docs-'));
let model: ModelServer | undefined;
const sandboxes = new Map<string, { dir: string; ports: Map<string, string> }>();

beforeAll(async () => {
  requireBuild();
  model = await startModelServer();
});
afterAll(async () => {
  await model?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** The scratch folder of a page (made on first use). */
function sandboxOf(file: string): { dir: string; ports: Map<string, string> } {
  const known = sandboxes.get(file);
  if (known !== undefined) return known;
  const dir = join(scratch, String(sandboxes.size + 1));
  mkdirSync(join(dir, '.bin'), { recursive: true });
  for (const name of ['dist', 'examples', 'e2e', 'node_modules']) symlinkSync(join(ROOT, name), join(dir, name));
  symlinkSync(join(ROOT, 'dist/examples/booking-server/server.js'), join(dir, 'server.js'));
  symlinkSync(join(ROOT, 'examples/agents/sdk-agent.mjs'), join(dir, 'my-agent.js'));
  const shim = join(dir, '.bin', 'cuonztech-agent-harness');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(shim, 0o755);
  const box = { dir, ports: new Map<string, string>() };
  sandboxes.set(file, box);
  return box;
}

function freePort(): Promise<string> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(String(port)));
    });
  });
}

/**
 * What stands in for what a page cannot have offline, applied to the block's text. Each rule says why;
 * nothing else of a command is changed.
 */
async function withStandIns(block: DocBlock, ports: Map<string, string>): Promise<string> {
  const origin = model!.baseUrl.replace(/\/v1$/, '');
  let s = block.script;
  // Run counts only scale the time a block takes: one run per scenario shows that the command works.
  s = s.replace(/--runs \d+/g, '--runs 1');
  // A local Ollama serving qwen3:14b: the scripted model server of the tests (its `try-again` persona).
  if (s.includes('qwen3:14b')) {
    s = s.replaceAll('http://127.0.0.1:11434', origin).replaceAll('qwen3:14b', 'try-again');
    if (!s.includes('--base-url')) s = s.replace('--model try-again', `--model try-again --base-url ${origin}/v1`);
  }
  // Your server: the bundled booking server.
  s = s.replaceAll('/path/to/your-server.js', 'dist/examples/booking-server/server.js');
  // A fixed port may be taken on a shared machine: each is replaced by a free one (the same on the whole page).
  for (const m of [...s.matchAll(/127\.0\.0\.1:(\d{2,5})\b|--http (\d{2,5})\b/g)]) {
    const port = m[1] ?? m[2]!;
    if (origin.endsWith(`:${port}`) || ports.has(port)) continue;
    ports.set(port, await freePort());
  }
  return s.replace(/(127\.0\.0\.1:|--http )(\d{2,5})\b/g, (all, prefix: string, port: string) =>
    ports.has(port) ? `${prefix}${ports.get(port)!}` : all,
  );
}

interface Ran {
  code: number | null;
  output: string;
}

function run(script: string, dir: string, runsUntil: string | undefined): Promise<Ran> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    PATH: `${join(dir, '.bin')}:${process.env['PATH'] ?? ''}`,
    HOME: dir,
  };
  delete env['GITHUB_STEP_SUMMARY'];
  return new Promise((resolve) => {
    const child = spawn('sh', ['-e', '-c', script], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let stopped = false;
    const stop = (signal: NodeJS.Signals): void => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => stop('SIGKILL'), 280_000);
    const take = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (runsUntil !== undefined && !stopped && output.includes(runsUntil)) {
        stopped = true;
        stop('SIGINT');
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('the shell commands of the README and docs/', () => {
  for (const block of blocks) {
    if (block.notRun !== undefined) {
      it.skip(`${block.where} (not run: ${block.notRun})`, () => {});
      continue;
    }
    it(`${block.where} ends with exit ${block.exit}`, { timeout: 300_000 }, async () => {
      const box = sandboxOf(block.file);
      const script = await withStandIns(block, box.ports);
      // A block that serves until stopped is one command: exec'd, so the SIGINT reaches it, not a shell.
      const r = await run(block.runsUntil === undefined ? script : `exec ${script}`, box.dir, block.runsUntil);
      const context = `${block.where}\n--- script\n${script}\n--- output\n${r.output.slice(-4000)}`;
      if (block.runsUntil !== undefined) expect(r.output, context).toContain(block.runsUntil);
      expect(r.code, context).toBe(block.runsUntil !== undefined ? 0 : block.exit);
      for (const text of block.outputs) expect(r.output, context).toContain(text);
    });
  }
});
