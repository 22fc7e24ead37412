/**
 * Glob matching for tool names: `*` is the only special character and stands for any run of
 * characters, possibly empty. Everything else, including `.`, `+`, `?`, `(` and `\`, is literal.
 * Matching is case-sensitive and uses no regular expressions: the old product compiled globs to regular
 * expressions and hung for 25 s on patterns with many `*`.
 */

/**
 * True when `name` matches `pattern` as a whole.
 *
 * The classic two-pointer wildcard algorithm: on a mismatch it backtracks only to the most recent `*`
 * and lets that star swallow one more character. Earlier stars never need revisiting, so the worst case
 * is O(pattern × name) and never exponential.
 */
export function globMatch(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let starAt = -1;
  let starName = 0;
  while (n < name.length) {
    if (p < pattern.length && pattern[p] === '*') {
      starAt = p++;
      starName = n;
    } else if (p < pattern.length && pattern[p] === name[n]) {
      p++;
      n++;
    } else if (starAt >= 0) {
      p = starAt + 1;
      n = ++starName;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}
