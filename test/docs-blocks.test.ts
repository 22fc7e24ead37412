/**
 * What the docs' shell blocks promise without running them (running them is `e2e/docs-commands.e2e.test.ts`,
 * in the `examples` project that `.ci/run` runs after `npm test`): the README's test command is the one CI
 * runs, the self-test is its first command, and every block left out of that run says why.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allBlocks } from './support/doc-blocks.js';

const ROOT = resolve(import.meta.dirname, '..');

describe('the shell blocks of the README and docs/', () => {
  const blocks = allBlocks(ROOT);

  it('the README shows the test command CI runs (.ci/run: its npm lines, in order), and the self-test as the first command', () => {
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('npm '));
    expect(ci).toContain('npm test');
    expect(ci).toContain('npm run test:examples');
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`\n${ci.join(' && ')}\n`);
    const setUp = blocks.find((b) => b.file === 'README.md')!;
    expect(setUp.script).toMatch(/^npm ci .*node dist\/cli\/bin\.js benchmark$/m);
  });

  it('every block not run says why, and most blocks are run', () => {
    const skipped = blocks.filter((b) => b.notRun !== undefined);
    for (const b of skipped) expect(b.notRun, b.where).not.toBe('');
    expect(blocks.length - skipped.length).toBeGreaterThan(skipped.length);
  });
});

describe('the agent programs the docs name', () => {
  const texts = [
    ...allBlocks(ROOT).map((b) => ({ where: b.where, text: b.script })),
    ...['examples/ci/shard.sh', 'src/cli/init-run.ts', 'scripts/frameworks.mjs', 'examples/agents/outcomes.mjs'].map((file) => ({
      where: file,
      text: readFileSync(join(ROOT, file), 'utf8'),
    })),
  ];

  it('are all named one way, as the sources under examples/agents/ that run as they are (never a build output)', () => {
    const named = texts.flatMap(({ where, text }) =>
      [...text.matchAll(/[\w./-]*examples\/agents\/[\w.-]+\.[cm]?[jt]s\b/g)].map((m) => ({ where, path: m[0] })),
    );
    expect(named.length).toBeGreaterThan(5);
    for (const { where, path } of named) {
      expect(path, where).toMatch(/^examples\/agents\/[\w.-]+\.mjs$/);
      expect(existsSync(join(ROOT, path)), `${where}: ${path}`).toBe(true);
    }
    expect(readdirSync(join(ROOT, 'examples/agents')).filter((f) => f.endsWith('.ts'))).toEqual([]);
  });
});
