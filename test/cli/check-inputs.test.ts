/**
 * `check` at the edges of its inputs and outputs ("Nothing lost, even at the edges"):
 * a path that is not a regular file (a FIFO must not hang the gate, a device must not be read to the end
 * of memory), and an output flag that names one of the files `check` reads (it must never replace the
 * report it judges). In-process: `runCli` drives `main` as the binary does. FIFOs, which only a process
 * makes: test/integration/check/fifo-inputs.test.ts.
 */
import { readFileSync, symlinkSync } from 'node:fs';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { writeHtmlReport } from '../../src/cli/html-report.js';
import { main } from '../../src/cli/main.js';
import { runCli } from '../support/in-process-cli.js';
import { carefulF1, documentOf, naiveF1, tempFiles } from '../support/report-docs.js';

let files: ReturnType<typeof tempFiles> | undefined;
afterEach(() => {
  files?.remove();
  files = undefined;
});

const check = (...args: string[]) => runCli(['check', ...args], { cwd: files!.dir, env: {} });

describe.skipIf(process.platform === 'win32')('check: paths that are not regular files (R-9.1)', () => {
  // FIFOs (made with mkfifo): test/integration/check/fifo-inputs.test.ts.
  it('R-9.1: a character device (/dev/zero) is refused by its kind, not read until memory runs out', async () => {
    files = tempFiles();
    const result = await check('/dev/zero');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('ERROR      /dev/zero: the file cannot be read: a character device, not a regular file');
  });
});

describe('check: an output flag never replaces a file check reads (R-9.1)', () => {
  const REPORT = documentOf(naiveF1());

  it('R-9.1: --junit, --markdown or --html naming the report judged (any spelling, or a link to it) is refused, the report untouched', async () => {
    files = tempFiles({ 'out/report.json': REPORT });
    symlinkSync(files.path('out/report.json'), files.path('out/summary.md'));
    const report = files.path('out/report.json');
    for (const output of [
      ['--junit', report],
      ['--html', `${files.path('out')}/../out/./report.json`],
      ['--markdown', files.path('out/summary.md')],
    ]) {
      const result = await check(report, ...output);
      expect(result.code, output.join(' ')).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(
          `^\\[cuonztech-agent-harness\\] error: ${output[0]} names a file check reads \\(.*report\\.json\\): it would be replaced; write the output to another file\\n$`,
        ),
      );
      expect(result.stdout).toBe('');
      expect(readFileSync(report, 'utf8')).toBe(REPORT);
    }
  });

  it('R-9.1: an output naming a report inside a folder check reads is refused, the report untouched', async () => {
    files = tempFiles({ 'out/a.json': REPORT, 'out/b.json': REPORT });
    const result = await check(files.path('out'), '--junit', files.path('out/b.json'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/error: --junit names a file check reads \(.*b\.json\)/);
    expect(readFileSync(files.path('out/b.json'), 'utf8')).toBe(REPORT);
  });

  it('R-9.1: --html over the --journal it reads (spelled another way) is refused, the journal untouched', async () => {
    const journal = '{"v":1,"event":"journal","at":0,"harnessVersion":"0.7.0","payloads":false}\n';
    files = tempFiles({ 'report.json': REPORT, 'calls.jsonl': journal });
    const result = await check(
      files.path('report.json'),
      '--journal',
      files.path('calls.jsonl'),
      '--html',
      `${files.dir}/./calls.jsonl`,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^\[cuonztech-agent-harness\] error: --html names a file check reads \(.*calls\.jsonl\)/);
    expect(readFileSync(files.path('calls.jsonl'), 'utf8')).toBe(journal);
  });

  it('R-9.1: $GITHUB_STEP_SUMMARY naming the report judged is refused rather than appended to it', async () => {
    files = tempFiles({ 'report.json': REPORT });
    const result = await runCli(['check', files.path('report.json')], {
      cwd: files.dir,
      env: { GITHUB_STEP_SUMMARY: files.path('report.json') },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/error: GITHUB_STEP_SUMMARY names a file check reads/);
    expect(readFileSync(files.path('report.json'), 'utf8')).toBe(REPORT);
  });
});

describe('check: the console lines', () => {
  it('/ R-9.1: bidi overrides and zero-width characters in a report path print visibly escaped, not raw', async () => {
    files = tempFiles({ 'get\u200b_orders\u202egpj.json': documentOf(carefulF1()) });
    const result = await check(files.path('get\u200b_orders\u202egpj.json'));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('get\\u200b_orders\\u202egpj.json');
    expect(result.stdout).not.toMatch(/[\u200b\u202e]/);
  });
});

describe('check: a report saved with a byte order mark', () => {
  it('R-9.1: a UTF-8 BOM before the JSON (PowerShell’s Set-Content adds one) is read as the report, not as half-written JSON', async () => {
    files = tempFiles({ 'naive.json': `\ufeff${documentOf(naiveF1())}` });
    const result = await check(files.path('naive.json'));
    expect(result.stdout).toMatch(/^FAIL {7}.*naive\.json/m);
    expect(result.code).toBe(2);
  });
});

describe('check: stdout closed by its reader', () => {
  it('R-9.1: `check … | head` (EPIPE on stdout) still writes --junit and exits by the verdict, no stack trace', async () => {
    files = tempFiles({ 'naive.json': documentOf(naiveF1()) });
    const epipe = () => Object.assign(new Error('write EPIPE'), { code: 'EPIPE', errno: -32, syscall: 'write' });
    const stdout = new Writable({ write: (_chunk, _encoding, done) => done(epipe()) });
    const stderr = new PassThrough();
    let errText = '';
    stderr.on('data', (chunk: Buffer) => (errText += chunk.toString('utf8')));
    const code = await main(['check', files.path('naive.json'), '--junit', files.path('junit.xml')], {
      stdin: new PassThrough(),
      stdout,
      stderr,
      env: {},
      cwd: files.dir,
      onSignal: () => () => undefined,
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(code).toBe(2);
    expect(readFileSync(files.path('junit.xml'), 'utf8')).toContain('<failure');
    expect(errText).toBe('');
  });
});

describe('proxy --report-html over its own report', () => {
  it('R-9.1: the HTML written at exit never replaces the report file it is built from', async () => {
    const report = documentOf(naiveF1());
    files = tempFiles({ 'r.json': report });
    const stderr = new PassThrough();
    let errText = '';
    stderr.on('data', (chunk: Buffer) => (errText += chunk.toString('utf8')));
    const io = {
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr,
      env: {},
      cwd: files.dir,
      onSignal: () => () => undefined,
    };
    expect(await writeHtmlReport([files.path('r.json')], `${files.dir}/./r.json`, io)).toBe(false);
    expect(errText).toMatch(/^\[cuonztech-agent-harness\] error: --report-html names the report it is built from \(.*r\.json\)/);
    expect(readFileSync(files.path('r.json'), 'utf8')).toBe(report);
  });
});
