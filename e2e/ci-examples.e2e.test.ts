/**
 * The CI examples run what they say: both YAML files are parsed, their commands must be the
 * same (install, build, `sh examples/ci/run-harness.sh`), and the test runs that script exactly as the
 * pipelines do — every scenario of the matrix with the careful agent (exit 0), and the naive agent
 * (exit 2) — and reads the JUnit file from the path the pipelines publish, with a real XML parser.
 * The sharded trial (`trial --shard i/n`, examples/ci/shard.sh) and its gate (`stats` then `check` with
 * rate gates, examples/ci/merge.sh) run as the pipelines run them: each matrix job's line with its
 * environment, the artifacts moved as the runner moves them, the gate over them — with the scripted
 * model (`--stub-model`), careful (exit 0) and naive (exit 2).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { requireBuild, ROOT } from '../test/support/proxy-harness.js';

interface GithubStep {
  run?: string;
  uses?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface GithubJob {
  needs?: string;
  strategy: { matrix: Record<string, Array<string | number>> };
  steps: GithubStep[];
}
const github = parse(readFileSync(join(ROOT, 'examples/ci/github-actions.yml'), 'utf8')) as {
  jobs: { chaos: { strategy: { matrix: { scenario: string[] } }; steps: GithubStep[] }; trial: GithubJob; gate: GithubJob };
};
interface GitlabJob {
  stage?: string;
  parallel?: number;
  needs?: string[];
  variables?: Record<string, string>;
  script: string[];
  artifacts: { paths: string[]; reports?: { junit: string } };
}
const gitlab = parse(readFileSync(join(ROOT, 'examples/ci/gitlab-ci.yml'), 'utf8')) as {
  stages: string[];
  'agent-trial': GitlabJob;
  'agent-gate': GitlabJob;
  'agent-harness': {
    parallel: { matrix: Array<{ HARNESS_SCENARIO: string[] }> };
    variables: Record<string, string>;
    script: string[];
    artifacts: { reports: { junit: string } };
  };
};
const out = mkdtempSync(join(tmpdir(), 'harness-ci-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Runs one command line of a pipeline with `sh -c` in the repository root, as a CI runner does. */
function runLine(line: string, env: Record<string, string>, cwd = ROOT): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('sh', ['-c', line], {
    cwd,
    encoding: 'utf8',
    timeout: 240_000,
    env: { ...process.env, GITHUB_STEP_SUMMARY: '', ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A checkout of the repository as a CI job sees it (its own working folder, the build linked in). */
function checkout(name: string): string {
  const dir = join(out, name);
  mkdirSync(dir, { recursive: true });
  for (const part of ['dist', 'examples', 'node_modules']) symlinkSync(join(ROOT, part), join(dir, part));
  return dir;
}

/** GitHub's `${{ matrix.x }}` expressions of a step's environment, for one matrix value. */
function githubEnv(step: GithubStep, matrix: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(step.env ?? {}).map(([k, v]) => [
      k,
      v.replace(/\$\{\{ matrix\.(\w+) \}\}/g, (_, key: string) => matrix[key]!),
    ]),
  );
}

/** The trial is spread over the matrix with fewer runs than the example's (the time of the suite). */
const RUNS = { HARNESS_RUNS: '2' };
const stubModel = (name: string) => ({ HARNESS_STUB_MODEL: `examples/stub-models/booking-${name}.yaml` });

function junitCounts(file: string): Record<string, string> {
  const xml = readFileSync(file, 'utf8');
  expect(XMLValidator.validate(xml)).toBe(true);
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as {
    testsuites: Record<string, string>;
  };
  const { tests, failures, errors, skipped } = doc.testsuites;
  return { tests: tests!, failures: failures!, errors: errors!, skipped: skipped! };
}

describe('CI examples', () => {
  const githubRuns = github.jobs.chaos.steps.flatMap((s) => (s.run === undefined ? [] : [s.run]));
  const gate = github.jobs.chaos.steps.find((s) => s.run?.includes('run-harness.sh'))!;
  const junitStep = github.jobs.chaos.steps.find((s) => s.uses?.startsWith('mikepenz/action-junit-report'))!;

  it('GitHub Actions and GitLab CI run the same commands: install, build, the shared script', () => {
    expect(githubRuns).toEqual(['npm ci --ignore-scripts', 'npm run build', 'sh examples/ci/run-harness.sh']);
    expect(gitlab['agent-harness'].script).toEqual(githubRuns);
    expect(github.jobs.chaos.strategy.matrix.scenario).toEqual(gitlab['agent-harness'].parallel.matrix[0]!.HARNESS_SCENARIO);
  });

  it.each(github.jobs.chaos.strategy.matrix.scenario)(
    'scenario %s: the careful agent passes the gate (exit 0) and the published JUnit is green',
    (scenario) => {
      requireBuild();
      const dir = join(out, 'gh', scenario);
      const env = Object.fromEntries(
        Object.entries(gate.env!).map(([k, v]) => [
          k,
          v.replace('${{ matrix.scenario }}', scenario).replace(/^out\//, `${out}/gh/`),
        ]),
      );
      const r = runLine(gate.run!, env);
      expect(r.stdout).toMatch(new RegExp(`^PASS .*\\(scenario ${scenario}\\)`, 'm'));
      expect(r.code).toBe(0);
      const junitPath = junitStep
        .with!['report_paths']!.replace('${{ matrix.scenario }}', scenario)
        .replace(/^out\//, `${out}/gh/`);
      expect(junitPath).toBe(join(dir, 'junit.xml'));
      expect(junitCounts(junitPath)).toEqual({ tests: '1', failures: '0', errors: '0', skipped: '0' });
    },
  );

  it('GitLab, F1, the naive agent: the gate fails with exit 2 and the JUnit the merge request shows has the failure', () => {
    const job = gitlab['agent-harness'];
    const env = { ...job.variables, HARNESS_SCENARIO: 'F1', HARNESS_AGENT: 'naive', HARNESS_OUT: join(out, 'gl', 'F1') };
    const r = runLine(job.script[2]!, env);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('DUPLICATE_EXECUTION');
    const junitPath = job.artifacts.reports.junit.replace('$HARNESS_SCENARIO', 'F1').replace(/^out\//, `${out}/gl/`);
    expect(junitCounts(junitPath)).toEqual({ tests: '1', failures: '1', errors: '0', skipped: '0' });
    expect(readFileSync(join(out, 'gl', 'F1', 'report.html'), 'utf8')).toContain('GHOST_WRITE');
  });
});

describe('CI examples: a trial spread over a matrix, one gate on rates', () => {
  const trial = github.jobs.trial;
  const gate = github.jobs.gate;
  const shardStep = trial.steps.find((s) => s.run?.includes('examples/ci/shard.sh'))!;
  const upload = trial.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))!;
  const download = gate.steps.find((s) => s.uses?.startsWith('actions/download-artifact'))!;
  const mergeStep = gate.steps.find((s) => s.run?.includes('examples/ci/merge.sh'))!;

  it('both pipelines install, build and call the same two scripts; the gate job waits for every shard', () => {
    const runs = (steps: GithubStep[]) => steps.flatMap((s) => (s.run === undefined ? [] : [s.run]));
    expect(runs(trial.steps)).toEqual(['npm ci --ignore-scripts', 'npm run build', 'sh examples/ci/shard.sh']);
    expect(runs(gate.steps)).toEqual(['npm ci --ignore-scripts', 'npm run build', 'sh examples/ci/merge.sh']);
    expect(gate.needs).toBe('trial');
    expect(gitlab.stages).toEqual(['test', 'gate']);
    expect(gitlab['agent-trial'].script.slice(0, 2)).toEqual(['npm ci --ignore-scripts', 'npm run build']);
    expect(gitlab['agent-trial'].script[2]).toMatch(/sh examples\/ci\/shard\.sh$/);
    expect(gitlab['agent-gate'].script).toEqual(runs(gate.steps));
    expect(gitlab['agent-gate'].needs).toEqual(['agent-trial']);
    // The artifact each shard uploads is what its trial wrote, and the gate downloads all of them.
    expect(upload.with!['path']).toBe(`${shardStep.env!['HARNESS_OUT']!}/`);
    expect(download.with!['pattern']).toBe(upload.with!['name']!.replace('${{ matrix.shard }}', '*'));
    expect(download.with!['path']).toBe(mergeStep.env!['HARNESS_SHARDS']);
  });

  it(
    'GitHub Actions, the careful scripted model: three shard jobs, the gate merges them and every rate gate holds (exit 0)',
    { timeout: 300_000 },
    () => {
      requireBuild();
      const shards = trial.strategy.matrix['shard']!.map(String);
      expect(shards).toEqual(['1', '2', '3']);
      const gateJob = checkout('gh-gate');
      for (const shard of shards) {
        const job = checkout(`gh-shard-${shard}`);
        const env: Record<string, string> = { ...githubEnv(shardStep, { shard }), ...RUNS };
        const r = runLine(shardStep.run!, env, job);
        expect(r.code).toBe(0);
        const summary = JSON.parse(readFileSync(join(job, env['HARNESS_OUT']!, 'summary.json'), 'utf8')) as {
          shard: { index: number; count: number };
        };
        expect(summary.shard).toEqual({ index: Number(shard), count: 3 });
        // upload-artifact keeps the folder's content under the artifact's name; download puts it under `path`.
        const artifact = upload.with!['name']!.replace('${{ matrix.shard }}', shard);
        cpSync(join(job, env['HARNESS_OUT']!), join(gateJob, download.with!['path']!, artifact), { recursive: true });
      }
      const r = runLine(mergeStep.run!, githubEnv(mergeStep, {}), gateJob);
      expect(r.stdout).toMatch(/^rates: .* 4 runs from 3 folders:$/m);
      expect(r.stdout).toMatch(/rate gates: 0 of 8 failed → exit 0$/m);
      expect(r.code).toBe(0);
      const report = gate.steps.find((s) => s.uses?.startsWith('mikepenz/action-junit-report'))!;
      expect(junitCounts(join(gateJob, report.with!['report_paths']!))).toEqual({
        tests: '12',
        failures: '0',
        errors: '0',
        skipped: '0',
      });
      expect(readFileSync(join(gateJob, 'out/gate/stats.md'), 'utf8')).toContain('F1');
    },
  );

  it(
    'GitLab, the naive scripted model: the parallel jobs shard by CI_NODE_INDEX, and the gate fails on the duplicate rate (exit 2)',
    { timeout: 300_000 },
    () => {
      requireBuild();
      const jobTrial = gitlab['agent-trial'];
      const jobGate = gitlab['agent-gate'];
      const gateJob = checkout('gl-gate');
      for (let index = 1; index <= jobTrial.parallel!; index++) {
        const job = checkout(`gl-shard-${index}`);
        const env = { CI_NODE_INDEX: String(index), CI_NODE_TOTAL: String(jobTrial.parallel), ...RUNS, ...stubModel('naive') };
        const r = runLine(jobTrial.script[2]!, env, job);
        expect(r.code).toBe(0);
        // GitLab hands the artifacts of every job the gate `needs` to it, at the same paths.
        for (const path of jobTrial.artifacts.paths) cpSync(join(job, path), join(gateJob, path), { recursive: true });
      }
      const r = runLine(jobGate.script[2]!, jobGate.variables!, gateJob);
      expect(r.stdout).toMatch(/^rate gate --max-duplicate-rate 5 % on F1: FAILED/m);
      expect(r.code).toBe(2);
      const junit = readFileSync(join(gateJob, jobGate.artifacts.reports!.junit), 'utf8');
      expect(junit).toContain('type="RATE_GATE"');
    },
  );
});
