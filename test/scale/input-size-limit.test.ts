/**
 * The other side of the input size limit (MAX_INPUT_BYTES, docs/commands/check.md): a report of exactly
 * the limit is read and judged. It writes and parses 64 MiB, hence the scale project; one byte over is
 * refused by its size in `test/cli/input-size-limit.test.ts`.
 */
import { afterEach, expect, it } from 'vitest';
import { MAX_INPUT_BYTES } from '../../src/adapters/files/report-files/regular-file.js';
import { runCli } from '../support/in-process-cli.js';
import { carefulF1, documentOf, tempFiles } from '../support/report-docs.js';

let files: ReturnType<typeof tempFiles> | undefined;
afterEach(() => {
  files?.remove();
  files = undefined;
});

it('check: a report of exactly the size limit is read', async () => {
  files = tempFiles();
  const report = documentOf(carefulF1());
  const atLimit = files.write('at-limit.json', report + ' '.repeat(MAX_INPUT_BYTES - Buffer.byteLength(report)));
  const read = await runCli(['check', atLimit], { cwd: files.dir, env: {} });
  expect(read.code, read.stdout).toBe(0);
  expect(read.stdout).toMatch(/^PASS {7}.*at-limit\.json/m);
});
