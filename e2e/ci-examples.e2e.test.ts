/**
 * The CI examples run what they say: both YAML files are parsed, their commands must be the
 * same (install, build, `sh examples/ci/run-harness.sh`), and the test runs that script exactly as the
 * pipelines do — every scenario of the matrix with the careful agent (exit 0), and the naive agent
 * (exit 2) — and reads the JUnit file from the path the pipelines publish, with a real XML parser.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { requireBuild, ROOT } from './support/proxy-harness.js';

interface GithubStep {
  run?: string;
  uses?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
const github = parse(readFileSync(join(ROOT, 'examples/ci/github-actions.yml'), 'utf8')) as {
  jobs: { chaos: { strategy: { matrix: { scenario: string[] } }; steps: GithubStep[] } };
};
const gitlab = parse(readFileSync(join(ROOT, 'examples/ci/gitlab-ci.yml'), 'utf8')) as {
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
function runLine(line: string, env: Record<string, string>): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('sh', ['-c', line], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 90_000,
    env: { ...process.env, GITHUB_STEP_SUMMARY: '', ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

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
