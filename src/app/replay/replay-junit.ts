/**
 * `replay --junit FILE` (docs/commands/replay.md): one `<testcase>` per replayed run, in the shape `check
 * --junit` writes. Its `classname` is the run's folder path (`replay.tests.recordings.naive.runs`), so the
 * runs of two suites never collide; its `name` the run folder; `time` the replay's duration. A run that
 * differs is a `<failure type="REPLAY_DIFFERS">` whose message is the differences; a run that left its
 * recording a `<failure type="REPLAY_MISS">` naming the call or the model request. A run that could not be
 * replayed at all (a torn recording, a missing environment variable, …) is an `<error type="REPLAY_REFUSED">`
 * with its reason, after the replayed runs.
 */
import type { ReplayOutcome } from './replay-service.js';
import { formatDifferences } from '../../domain/trial/replay-diff.js';
import { xmlAttr, xmlText } from '../report-formats/escape.js';

const TOOL = 'cuonztech-agent-harness';

/** The folder path of a run as a classname: its parent folders joined with dots. */
function classnameOf(name: string): string {
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  parts.pop();
  return [`${TOOL}.replay`, ...parts.map((p) => p.replaceAll('.', '_'))].join('.');
}

const baseName = (name: string): string =>
  name
    .split('/')
    .filter((p) => p !== '')
    .at(-1) ?? name;

function testcase(outcome: ReplayOutcome): string {
  const name = outcome.run.name;
  const time = Math.round(outcome.durationMs) / 1000;
  const lines = outcome.status === 'miss' ? outcome.misses : formatDifferences(outcome.differences);
  const failure =
    outcome.status === 'equal'
      ? ''
      : `      <failure message="${xmlAttr(lines.join('; '))}" type="${outcome.status === 'miss' ? 'REPLAY_MISS' : 'REPLAY_DIFFERS'}">${xmlText(lines.join('\n'))}</failure>\n`;
  return (
    `    <testcase classname="${xmlAttr(classnameOf(name))}" name="${xmlAttr(baseName(name))}" time="${time}" file="${xmlAttr(name)}">\n` +
    failure +
    '    </testcase>\n'
  );
}

/** A run `replay` could not replay, and why. */
export interface RefusedReplay {
  name: string;
  why: string;
}

function refusedTestcase({ name, why }: RefusedReplay): string {
  return (
    `    <testcase classname="${xmlAttr(classnameOf(name))}" name="${xmlAttr(baseName(name))}" time="0" file="${xmlAttr(name)}">\n` +
    `      <error message="${xmlAttr(why)}" type="REPLAY_REFUSED">${xmlText(why)}</error>\n` +
    '    </testcase>\n'
  );
}

/** The JUnit XML document of the replayed runs and the refused ones (UTF-8, well-formed whatever the paths contain). */
export function replayJunit(outcomes: readonly ReplayOutcome[], refused: readonly RefusedReplay[] = []): string {
  const failures = outcomes.filter((o) => o.status !== 'equal').length;
  const seconds = outcomes.reduce((ms, o) => ms + Math.round(o.durationMs), 0) / 1000;
  const counts = `tests="${outcomes.length + refused.length}" failures="${failures}" errors="${refused.length}" skipped="0" time="${seconds}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    `<testsuites name="${TOOL} replay" ${counts}>\n`,
    `  <testsuite name="replay" ${counts}>\n`,
    ...outcomes.map(testcase),
    ...refused.map(refusedTestcase),
    '  </testsuite>\n',
    '</testsuites>\n',
  ].join('');
}
