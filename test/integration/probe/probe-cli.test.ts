/**
 * `probe`'s flags and bad input, the whole CLI in-process (`main`) in front of the payments fixtures:
 * one clear line and exit 1 for anything wrong, the exit codes of a run (0 KEEPS, 2 BREAKS, 3 nothing
 * could be judged).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { FIXTURES, runCli } from '../../support/in-process-cli.js';

const server = (name: string) => ['probe', '--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, name)];
const STRIPE = server('stripe-keys-server.mjs');
const PAYMENT = ['--tools', 'create_payment', '--example', 'create_payment={"amount":5}'];
const oneLine = (stderr: string) => {
  expect(stderr.split('\n').filter((line) => line !== '')).toHaveLength(1);
  expect(stderr).not.toContain('    at ');
};

describe('probe: flags and bad input', { timeout: 60_000 }, () => {
  it.each([
    [['--scenario', 'F1'], 'unknown flag --scenario for probe; see probe --help'],
    [['--example', 'create_payment'], 'flag --example takes TOOL=JSON'],
    [['--example', 'create_payment={amount'], 'the JSON of --example create_payment is not JSON'],
    [['--example', 'create_payment=[1]'], 'the JSON of --example create_payment must be a JSON object'],
    [['--gap', '-5'], '--gap'],
    [['--hold', '-5'], '--hold'],
    [['--gap', '100', '--hold', '100'], 'give --gap or its older name --hold, not both'],
    [['--count-with', 'list_items=5'], 'the JSON of --count-with list_items must be a JSON object'],
    [['--effects-tool', 'list_items=5'], 'the JSON of --effects-tool list_items must be a JSON object'],
    [['--effects-tool', 'list_items', '--count-with', 'list_items'], '--effects-tool and --count-with name the same thing'],
    [['--effects-command', 'cat'], '--effects-command cat needs --effect-key FIELDS'],
    [['--effects-tool', 'list_items', '--effects-path', 'items'], '--effects-tool list_items needs --effect-key FIELDS'],
    [['--effect-key', 'id'], '--effect-key needs --effects-tool TOOL[=JSON] or --effects-command CMD'],
    [['--effects-arg', 'x', '--effects-tool', 'list_items'], '--effects-arg is an argument of --effects-command CMD'],
    [
      ['--effects-command', 'cat', '--effects-arg', '{run_dir}/x', '--effect-key', 'id'],
      'holds {run} or {run_dir}, which trial fills in per run',
    ],
    [['--json', 'out.txt', '--junit', './out.txt'], '--json and --junit must name different files'],
    [
      ['--example', 'create_paymnet={"amount":5}'],
      '--example create_paymnet: not a write tool of the upstream (write tools: create_payment, set_note)',
    ],
  ])('%j is refused in one line, exit 1', async (flags, message) => {
    const result = await runCli([...STRIPE, ...flags]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    oneLine(result.stderr);
  });

  it.each(['--gap', '--hold'])(
    'P3 sends the second call %s ms after the first (--hold: the older name, kept for a release)',
    async (flag) => {
      const dir = mkdtempSync(join(tmpdir(), 'probe-gap-'));
      try {
        const p3 = async (ms: number) => {
          const json = join(dir, `${flag}-${ms}.json`);
          // A payment works 300 ms here, so a second call at once meets the first still running (with
          // the fixture's default of 0 ms that was a race the first call could win on a busy machine).
          await runCli([...STRIPE, ...PAYMENT, '--upstream-env', 'FIXTURE_WORK_MS=300', flag, String(ms), '--json', json]);
          const results = JSON.parse(readFileSync(json, 'utf8')) as {
            tools: Array<{ probes: Array<{ probe: string; label: string }> }>;
          };
          return results.tools[0]!.probes.find((p) => p.probe === 'P3')!.label;
        };
        // At once, while the fixture still works on the payment, the second call is a conflict; a second
        // after the first, once it was answered (300 ms), inconclusive.
        expect(await p3(0)).toBe('conflict_ok');
        expect(await p3(1000)).toBe('inconclusive');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('a count tool whose answer cannot be counted: one clear line, exit 1', async () => {
    const result = await runCli([...STRIPE, ...PAYMENT, '--count-with', 'set_note={"name":"x"}']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--count-with set_note: its answer cannot be counted');
    oneLine(result.stderr);
  });

  it("R-15: --effects-tool is the count tool under the effects view's name (--count-with its alias)", async () => {
    const result = await runCli([...STRIPE, ...PAYMENT, '--effects-tool', 'set_note={"name":"x"}']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--effects-tool set_note: its answer cannot be counted');
    oneLine(result.stderr);
  });

  it('R-15: --effects-command with --effect-key: every probe gets an effects verdict from the records before and after it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probe-effects-'));
    try {
      // The view: the payments the fixture's ledger says it created, one record each, keyed by the key sent.
      const list =
        "const t=(()=>{try{return require('fs').readFileSync(process.argv[1],'utf8')}catch{return ''}})();" +
        "for(const l of t.split('\\n')){if(!l)continue;const e=JSON.parse(l);" +
        "if(e.tool==='create_payment'&&e.effect==='created')console.log(JSON.stringify({key:e.arguments.idempotency_key??null,n:e.n}))}";
      const verdicts = [];
      for (const fixture of ['stripe-keys-server.mjs', 'key-ignoring-server.mjs']) {
        const ledger = join(dir, `${fixture}.ledger.jsonl`);
        const json = join(dir, `${fixture}.json`);
        const result = await runCli([
          ...server(fixture),
          ...PAYMENT,
          '--upstream-env-var',
          `FIXTURE_LEDGER=${ledger}`,
          '--effects-command',
          process.execPath,
          '--effects-arg',
          '-e',
          '--effects-arg',
          list,
          '--effects-arg',
          ledger,
          '--effect-key',
          'key',
          '--json',
          json,
        ]);
        const file = JSON.parse(readFileSync(json, 'utf8')) as {
          countWith: string;
          tools: Array<{
            probes: Array<{ probe: string; evidence: { counts: number[]; effects?: { verdict: string; reason: string } } }>;
          }>;
        };
        expect(file.countWith).toBe(`the effects command ${process.execPath}`);
        const p1 = file.tools[0]!.probes.find((p) => p.probe === 'P1')!;
        // The counts are the command's records: one payment more after the first call.
        expect(p1.evidence.counts[1]! - p1.evidence.counts[0]!).toBe(1);
        verdicts.push([
          result.code,
          p1.evidence.effects?.verdict,
          result.stdout.includes(`effects ${p1.evidence.effects?.verdict}`),
        ]);
        // What the fixture created, from its own ledger: the effects verdict agrees with it.
        const created = readFileSync(ledger, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as { effect?: string; arguments: { idempotency_key?: string } })
          .filter((e) => e.effect === 'created');
        expect(created.length).toBeGreaterThan(0);
      }
      // Keys honoured: P1's repeat replayed, one payment (EXACTLY_ONCE); keys ignored: two (DUPLICATE_EFFECT), exit 2.
      expect(verdicts).toEqual([
        [0, 'EXACTLY_ONCE', true],
        [2, 'DUPLICATE_EFFECT', true],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('R-15: an effects view that cannot be read at the start: one clear line, exit 1', async () => {
    const result = await runCli([
      ...STRIPE,
      ...PAYMENT,
      '--effects-tool',
      'list_items',
      '--effects-path',
      'rows',
      '--effect-key',
      'id',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "the effects view cannot be read: the effects tool list_items: the answer has no field 'rows'",
    );
    oneLine(result.stderr);
  });

  it('an example every call of which the tool rejects: inconclusive with its message, exit 3', async () => {
    const result = await runCli([
      ...STRIPE,
      '--tools',
      'create_payment',
      '--example',
      'create_payment={"amount":0}',
      '--count-with',
      'list_items',
    ]);
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(
      /P1\s+inconclusive\s+the server refused the example: validation error: amount must be a positive integer/,
    );
    expect(result.stdout).toMatch(/verdict\s+INCONCLUSIVE/);
  });

  it('a server that keeps its promise: exit 0; without --count-with the answers decide and the table says so', async () => {
    const result = await runCli([...STRIPE, ...PAYMENT]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /P1\s+replay_ok\s+same key, same arguments: the first answer replayed \(judged by the answers: no --count-with\)/,
    );
    expect(result.stdout).toContain('effects judged by the answers (no --count-with)');
  });

  it('a count tool with a huge listing: the --json evidence keeps its head, count and hash, so check reads the file and exits 2 (issue 41 §9)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probe-huge-listing-'));
    try {
      // 400 KB per listing, about 20 listings: the old evidence kept every one whole (8 MB).
      const argv = [
        ...server('key-ignoring-server.mjs'),
        ...PAYMENT,
        '--upstream-env',
        'FIXTURE_LIST_PADDING=200000',
        '--count-with',
        'list_items',
        '--json',
        'p.json',
      ];
      const result = await runCli(argv, { cwd: dir });
      expect(result.code, result.stderr).toBe(2);
      const text = readFileSync(join(dir, 'p.json'), 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThan(100_000);
      const rows = (
        JSON.parse(text) as {
          tools: Array<{
            probes: Array<{
              label: string;
              evidence: { counts: number[]; listings: Array<{ count: number; hash: string; head: string[] }> };
            }>;
          }>;
        }
      ).tools[0]!.probes;
      const p1 = rows[0]!;
      expect(p1.label).toBe('double_created');
      expect(p1.evidence.counts[0]).toBe(200_000);
      expect(p1.evidence.listings[0]).toEqual({ count: 2, hash: expect.any(String), head: ['[]', `[${'0,'.repeat(99)}0…`] });
      expect(p1.evidence.listings[1]!.hash).not.toBe(p1.evidence.listings[0]!.hash);
      const check = await runCli(['check', join(dir, 'p.json')], { cwd: dir });
      expect(check.code, check.stderr).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--markdown and --junit: the same labels; a probe that breaks the promise is a JUnit failure, exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probe-formats-'));
    try {
      const argv = [
        ...server('key-ignoring-server.mjs'),
        ...PAYMENT,
        '--count-with',
        'list_items',
        '--markdown',
        'p.md',
        '--junit',
        'p.xml',
      ];
      const result = await runCli(argv, { cwd: dir });
      expect(result.code).toBe(2);
      const markdown = readFileSync(join(dir, 'p.md'), 'utf8');
      expect(markdown).toContain('| create\\_payment | **BREAKS** | not at all |');
      expect(markdown).toContain('| create\\_payment | P1 | double\\_created |');
      const xml = readFileSync(join(dir, 'p.xml'), 'utf8');
      expect(XMLValidator.validate(xml)).toBe(true);
      const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as {
        testsuites: {
          tests: string;
          failures: string;
          skipped: string;
          testsuite: { testcase: Array<{ name: string; failure?: { message: string } }> };
        };
      };
      expect(parsed.testsuites.failures).toBe('5');
      expect(parsed.testsuites.tests).toBe('9');
      const failed = parsed.testsuites.testsuite.testcase
        .filter((c) => c.failure !== undefined)
        .map((c) => [c.name.slice(0, 2), c.failure!.message]);
      expect(failed).toEqual([
        ['P1', 'double_created'],
        ['P2', 'silent_new_result'],
        ['P3', 'double_created'],
        ['P5', 'double_created'],
        ['P9', 'double_created'],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
