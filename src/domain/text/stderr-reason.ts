/**
 * What a failed process's stderr says about why it failed, for one-line reasons: the upstream that did
 * not start, the agent program that failed. Node prints a source excerpt, the error, its stack, a
 * `{ code: … }` block and its version banner; the last lines of that (`} | | Node.js v20…`) tell nothing.
 */

/**
 * A line that says what went wrong: `Error: …`, `TypeError: …`, `ModuleNotFoundError: …` (Python's last
 * line), `error: …`, `fatal: …`, `panic: …`.
 */
const ERROR_LINE = /^([A-Za-z_.]*(Error|Exception)|error|fatal|panic)\b[^:]{0,40}:/i;
/** What Node prints last after an uncaught error (`Node.js v20.11.0`): never the reason. */
const NODE_BANNER = /^Node\.js v\d/;

/**
 * The lines of `stderr` that tell why the process failed: the first line that reads like an error, else
 * its last `fallback` non-empty lines but Node's version banner; none when it wrote nothing. Trimmed.
 */
export function stderrReasonLines(stderr: string, fallback = 1): string[] {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const error = lines.find((line) => ERROR_LINE.test(line));
  if (error !== undefined) return [error];
  const rest = lines.filter((line) => !NODE_BANNER.test(line));
  return fallback <= 0 ? [] : rest.slice(-fallback);
}
