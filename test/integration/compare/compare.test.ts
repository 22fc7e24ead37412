/**
 * `compare` on real trial folders: the `trial` command in-process against the scripted model server and
 * the bundled booking server (test/support/trial-runs.ts). A naive persona re-sends the booking after
 * F1's timeout (every run a duplicate), a careful one checks first (none); the ghost-patch persona is
 * naive in a trial's baseline arm and careful in its patched arm, so its patch A/B holds the same counts.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { compareOutputSchema } from '../../../src/adapters/schemas/compare-output.schema.js';
import { expectMatchesSchema } from '../../support/file-schemas.js';
import { runCli } from '../../support/in-process-cli.js';
import { inProcessTrial, modelArgs, TASK, useTrialServers, type InProcessTrial } from '../../support/trial-runs.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 240_000 });

const servers = useTrialServers();
const scratch = mkdtempSync(join(tmpdir(), 'harness-compare-'));
const trials: Record<'naive' | 'careful' | 'patched' | 'carefulF2', InProcessTrial> = {} as never;

async function trial(persona: string, ...rest: string[]): Promise<InProcessTrial> {
  const task = rest.includes('--task-file') ? [] : TASK;
  const output = await inProcessTrial(servers.booking, modelArgs(servers, persona, ...task, ...rest));
  expect(output.result.code, output.result.stderr).toBe(0);
  return output;
}

beforeAll(async () => {
  trials.naive = await trial('naive', '--scenario', 'F1', '--runs', '10');
  trials.careful = await trial('careful', '--scenario', 'F1', '--runs', '10');
  trials.patched = await trial('ghost-patch', '--scenario', 'F1', '--runs', '10', '--patch', 'auto');
  trials.carefulF2 = await trial('careful', '--scenario', 'F2', '--runs', '2');
});
afterAll(() => {
  for (const output of Object.values(trials)) output?.remove();
  rmSync(scratch, { recursive: true, force: true });
});

type Rates = Array<{ rate: string; baseline: unknown; treatment: unknown; difference: unknown; p: unknown }>;

describe('compare A B: two trials side by side', () => {
  it('naive against careful under F1: the figures of the patch A/B of the same counts, the differing model first, one sentence (R-14 sources)', async () => {
    const json = join(scratch, 'compare.json');
    const markdown = join(scratch, 'compare.md');
    const html = join(scratch, 'compare.html');
    const result = await runCli([
      'compare',
      trials.naive.out,
      trials.careful.out,
      '--json',
      json,
      '--markdown',
      markdown,
      '--html',
      html,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(json, 'utf8')) as {
      kind: string;
      settingsThatDiffer: Array<{ setting: string; a: string; b: string }>;
      comparison: {
        scenarios: Array<{
          scenario: string;
          rates: Rates;
          sentence: string;
          duplicateBySource: Record<string, { baseline: unknown; treatment: unknown }>;
        }>;
      };
    };
    expectMatchesSchema(compareOutputSchema, doc, 'compare output');
    expect(doc.kind).toBe('compare');
    expect(doc.settingsThatDiffer).toEqual([{ setting: '--model', a: 'naive', b: 'careful' }]);
    const [f1] = doc.comparison.scenarios;
    expect(f1!.scenario).toBe('F1');
    const duplicates = f1!.rates.find((r) => r.rate === 'duplicateExecution')!;
    expect(duplicates.baseline).toEqual({ count: 10, of: 10 });
    expect(duplicates.treatment).toEqual({ count: 0, of: 10 });
    // Fisher: 2 / C(20, 10) = 1.0825e-5. Newcombe: both arms' Wilson half-gaps are z²/(10 + z²) = 0.27753, so the
    // upper end is −1 + √2 · 0.27753 = −0.6075 and the lower end is clipped at −1.
    expect(duplicates.p as number).toBeCloseTo(1.0825e-5, 8);
    const difference = duplicates.difference as { difference: number; low: number; high: number };
    expect(difference.difference).toBe(-1);
    expect(difference.low).toBe(-1);
    expect(difference.high).toBeCloseTo(-0.6075, 3);
    // The patch A/B of a trial whose baseline arm is naive and whose patched arm is careful: the same numbers.
    const patch = (trials.patched.summary['patchComparison'] as { comparison: { scenarios: Array<{ rates: Rates }> } })
      .comparison;
    expect(f1!.rates).toEqual(patch.scenarios[0]!.rates);
    expect(f1!.duplicateBySource['model']).toMatchObject({ baseline: { count: 10, of: 10 }, treatment: { count: 0, of: 10 } });
    expect(f1!.sentence).toBe(
      'B (F1): duplicate executions 10/10 → 0/10, p = 1.1e-5 (−100 pp, 95 % CI −100 pp to −61 pp) — better with B (significant at the 5 % level).',
    );
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe(`A = ${trials.naive.out} (10 runs, harness ${String(trials.naive.summary['harnessVersion'])})`);
    expect(lines[2]).toBe('settings that differ (A → B):');
    expect(lines[3]).toBe('  --model: naive → careful');
    expect(lines).toContain(f1!.sentence);
    expect(result.stdout).toMatch(/F1 +duplicate executions +10\/10 \(100 %\) +0\/10 \(0 %\) +−100 pp \[−100, −61\] +1\.1e-5/);
    expect(result.stdout).toMatch(/F1 +PASS +0\/10 \(0 %\) +10\/10 \(100 %\) +\+100 pp \[\+61, \+100\] +1\.1e-5/);
    expect(result.stdout).toMatch(/F1 +pass\^8 +0\.00 +1\.00 +\+1\.00/);
    const md = readFileSync(markdown, 'utf8');
    expect(md).toContain('- --model: naive → careful');
    expect(md).toContain('| F1 | duplicate executions | 10/10 (100 %) | 0/10 (0 %) | −100 pp [−100, −61] | 1.1e-5 |');
    const page = readFileSync(html, 'utf8');
    expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none';`);
    expect(page).not.toMatch(/<script|<link|<img|https?:\/\//i);
    expect(page).toContain('<li><code>--model</code>: naive → careful</li>');
    // The headline findings under their own heading, each marked (issue 42 §6).
    expect(page).toContain('<h2 id="findings">Headline findings (B against A)</h2>');
    expect(page).toContain(`<li class="finding-better"><span class="badge PASS">better</span> ${f1!.sentence}</li>`);
    // p < 0.05: the row is bold; p = 1: it is not.
    expect(page).toContain(
      '<tr><td data-label="scenario"><b>F1</b></td><td data-label="rate"><b>duplicate executions</b></td><td data-label="A"><b>10/10 (100 %)</b></td>',
    );
    expect(page).toContain(
      '<tr><td data-label="scenario">F1</td><td data-label="rate">lost transactions</td><td data-label="A">0/10 (0 %)</td>',
    );
    // The forest plot (issue 42 §5): inline SVG, B − A of the duplicates better with B.
    expect(page).toContain('<h2 id="forest-plot">Forest plot</h2>');
    expect(page).toContain('F1 · duplicates</tspan> −100 pp [−100, −61] better');
  });

  it('a system prompt that differs is named by its file beside its hash (the file recorded beside configurationHash, not in it); a trial without the record still compares', async () => {
    const prompts = join(scratch, 'prompts');
    mkdirSync(prompts, { recursive: true });
    const [first, second, copy] = ['careful.txt', 'terse.txt', 'careful-copy.txt'].map((name) => join(prompts, name));
    writeFileSync(first!, 'You are careful.\n');
    writeFileSync(second!, 'Be terse.\n');
    writeFileSync(copy!, 'You are careful.\n');
    const [a, b, c] = await Promise.all(
      [first, second, copy].map((file) => trial('careful', '--scenario', 'F1', '--runs', '1', '--system-prompt', file!)),
    );
    try {
      const setting = 'task default: system prompt';
      const provenance = (t: InProcessTrial) =>
        t.summary['provenance'] as {
          configurationHash: string;
          settings: Record<string, string>;
          settingFiles: Record<string, string>;
        };
      expect(provenance(a!).settingFiles).toEqual({ [setting]: first });
      // The same text from another file: the same configuration (stats pools them), only the record of the file differs.
      expect(provenance(c!).configurationHash).toBe(provenance(a!).configurationHash);
      expect(provenance(c!).settingFiles).toEqual({ [setting]: copy });
      const json = join(scratch, 'prompts.json');
      const html = join(scratch, 'prompts.html');
      const markdown = join(scratch, 'prompts.md');
      const result = await runCli(['compare', a!.out, b!.out, '--json', json, '--html', html, '--markdown', markdown]);
      expect(result.code, result.stderr).toBe(0);
      const [hashA, hashB] = [provenance(a!).settings[setting]!, provenance(b!).settings[setting]!];
      expect(hashA).toMatch(/^sha256:[0-9a-f]{16}$/);
      expect(result.stdout).toContain(`  ${setting}: ${hashA} (from ${first}) → ${hashB} (from ${second})\n`);
      const doc = JSON.parse(readFileSync(json, 'utf8')) as { settingsThatDiffer: unknown };
      expectMatchesSchema(compareOutputSchema, doc, 'compare output');
      expect(doc.settingsThatDiffer).toEqual([{ setting, a: hashA, b: hashB, aFile: first, bFile: second }]);
      expect(readFileSync(html, 'utf8')).toContain(
        `<li><code>${setting}</code>: ${hashA} <span class="file">(from <code>${first}</code>)</span> → ${hashB} <span class="file">(from <code>${second}</code>)</span></li>`,
      );
      expect(readFileSync(markdown, 'utf8')).toContain(`(from ${first})`);
      // A trial from before the record: its summary has no settingFiles; it compares, its side names no file.
      const old = join(scratch, 'old-trial');
      cpSync(a!.out, old, { recursive: true });
      const summary = JSON.parse(readFileSync(join(old, 'summary.json'), 'utf8')) as { provenance: Record<string, unknown> };
      delete summary.provenance['settingFiles'];
      writeFileSync(join(old, 'summary.json'), JSON.stringify(summary));
      const withOld = await runCli(['compare', old, b!.out]);
      expect(withOld.code, withOld.stderr).toBe(0);
      expect(withOld.stdout).toContain(`  ${setting}: ${hashA} → ${hashB} (from ${second})\n`);
    } finally {
      for (const t of [a, b, c]) t?.remove();
    }
  });

  it('several folders per side (A1 A2 -- B1) merge each side as stats does', async () => {
    const result = await runCli(['compare', trials.naive.out, trials.carefulF2.out, '--', trials.careful.out]);
    // The two folders of side A ran different scenario sets: stats would refuse to pool them, so compare does.
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\] side A: cannot merge: .* ran scenarios F1 and .* ran F2/);
    const markdown = join(scratch, 'sides.md');
    const ok = await runCli(['compare', '--markdown', markdown, trials.naive.out, '--', trials.careful.out]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('B (F1): duplicate executions 10/10 → 0/10');
    expect(readFileSync(markdown, 'utf8')).toContain('- B (F1): duplicate executions 10/10 → 0/10');
  });

  it('bad input is one line and exit 1: not a trial folder, a file, an empty side, no common scenario, different tasks, a wrong count of folders', async () => {
    const empty = join(scratch, 'empty');
    mkdirSync(empty);
    const tasks = join(scratch, 'tasks.yaml');
    writeFileSync(tasks, ['tasks:', '  - id: deluxe', '    task: Book a deluxe room for Bo Chen on 2026-06-01.'].join('\n'));
    const otherTask = await trial('careful', '--task-file', tasks, '--scenario', 'F1', '--runs', '1');
    try {
      // The careful trial as an older harness would have written it.
      const older = join(scratch, 'older');
      cpSync(trials.careful.out, older, { recursive: true });
      for (const file of [
        join(older, 'summary.json'),
        ...readdirSync(join(older, 'runs')).map((run) => join(older, 'runs', run, 'run.json')),
      ]) {
        const value = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
        writeFileSync(file, JSON.stringify({ ...value, harnessVersion: '0.6.0' }));
      }
      const cases: Array<[string[], RegExp]> = [
        [
          [trials.naive.out, older],
          /\] cannot compare: side A \(.*\) was made by harness 0\.7\.\d+ and side B \(.*older\) by 0\.6\.0; their reports differ\n$/,
        ],
        [
          [empty, trials.careful.out],
          /is not a trial folder \(summary\.json and runs\/, written by trial --out\); compare takes trial folders\n$/,
        ],
        [
          [join(trials.careful.out, 'summary.json'), trials.naive.out],
          /summary\.json is not a folder; compare takes trial folders\n$/,
        ],
        [[join(scratch, 'missing'), trials.careful.out], /missing cannot be read: /],
        [[trials.naive.out, '--'], /compare: side B \(after --\) has no trial folder/],
        [['--', trials.naive.out], /compare: side A \(before --\) has no trial folder/],
        [[trials.naive.out], /compare takes two trial folders \(compare A B\).*got 1/],
        [
          [trials.naive.out, trials.carefulF2.out],
          /\] cannot compare: the sides have no scenario in common: side A ran F1, side B ran F2\n$/,
        ],
        [[trials.naive.out, otherTask.out], /\] cannot compare: setting "tasks" differs: side A ran tasks .* and side B ran /],
      ];
      for (const [args, message] of cases) {
        const result = await runCli(['compare', ...args]);
        expect(result.code, args.join(' ')).toBe(1);
        expect(result.stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
        expect(result.stderr, args.join(' ')).toMatch(message);
        expect(result.stdout).toBe('');
      }
    } finally {
      otherTask.remove();
    }
  });

  it('a hostile folder name appears escaped in the HTML and Markdown, never as markup', async () => {
    const hostile = join(scratch, 'b<img src=x onerror=alert(1)>');
    cpSync(trials.careful.out, hostile, { recursive: true });
    const html = join(scratch, 'hostile.html');
    const markdown = join(scratch, 'hostile.md');
    const result = await runCli(['compare', trials.naive.out, hostile, '--html', html, '--markdown', markdown]);
    expect(result.code, result.stderr).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).not.toContain('<img');
    expect(page).toContain('b&lt;img src=x onerror=alert(1)&gt;');
    expect(readFileSync(markdown, 'utf8')).not.toContain('<img');
  });

  it('an output that cannot be written: one line, exit 1, nothing on stdout', async () => {
    const blocker = join(scratch, 'blocker');
    writeFileSync(blocker, 'x');
    const result = await runCli(['compare', trials.naive.out, trials.careful.out, '--json', join(blocker, 'out.json')]);
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(existsSync(join(blocker, 'out.json'))).toBe(false);
  });
});
