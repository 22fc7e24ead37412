/**
 * `check` at the process's own limits ("Nothing lost, even at the edges"): the compiled CLI under
 * a small open-file limit (macOS shells default to 256 descriptors) reads a `--report-dir` folder of many
 * sessions without a single EMFILE, so a large run is judged, not turned into harness errors.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carefulF1, documentOf, tempFiles } from '../test/support/report-docs.js';
import { BIN } from '../test/support/proxy-harness.js';

const SESSIONS = 400;
let files: ReturnType<typeof tempFiles>;
beforeAll(() => {
  const report = documentOf(carefulF1());
  files = tempFiles(Object.fromEntries(Array.from({ length: SESSIONS }, (_, i) => [`out/session-${i}.json`, report])));
});
afterAll(() => files.remove());

describe.skipIf(process.platform === 'win32')('check under a small open-file limit', () => {
  it(`R-9.1: ${SESSIONS} reports in one folder with ulimit -n 128: every one read, exit 0`, () => {
    const run = spawnSync('sh', ['-c', 'ulimit -n 128 && exec "$0" "$1" check "$2"', process.execPath, BIN, files.path('out')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stdout).not.toContain('EMFILE');
    expect(run.stdout).toContain(`check: ${SESSIONS} session(s)/run(s): ${SESSIONS} PASS`);
    expect(run.status).toBe(0);
  });
});
