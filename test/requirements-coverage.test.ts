/**
 * The requirement ids of `../shared/spec/REQUIREMENTS.md` against the tests (issue 12), like the MCP
 * TypeScript SDK's `test/e2e/coverage.test.ts`: every requirement is cited by at least one test, and no
 * test cites one that does not exist.
 *
 * - A requirement is an id that opens a heading (`## R-8 Proxy`) or a bullet (`- R-8.1 …`, `  - R-9.2.1 …`).
 * - A test cites an id by naming it in its title: the first argument of `it(…)`, `test(…)` or
 *   `describe(…)` (modifiers such as `.concurrent`, `.skipIf(…)`, `.each(…)` included) in a `*.test.ts`
 *   file under `test/` or `e2e/`. A heading counts as cited when it or an id under it is (`R-8.1` cites
 *   `R-8`); a bullet must be cited itself.
 * - An unknown id is any `R-n(.n)*` written anywhere in those folders (titles, comments, tables) that is
 *   no requirement: a typo, or a number the spec dropped.
 * CI puts a copy of `shared/` beside the clone, so the file is found at the same relative path there.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const REQUIREMENTS_FILE = resolve(ROOT, '../shared/spec/REQUIREMENTS.md');
const ID = /\bR-\d+(?:\.\d+)*/g;

function* sourceFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules') yield* sourceFiles(path);
    } else if (/\.(?:ts|mts|mjs|js)$/.test(name)) {
      yield path;
    }
  }
}

/** The ids that open a heading or a bullet, and which of them are headings. */
function requirements(text: string): { ids: Set<string>; headings: Set<string> } {
  const ids = new Set<string>();
  const headings = new Set<string>();
  for (const match of text.matchAll(/^[ \t]*(#{2,}|-)[ \t]+(R-\d+(?:\.\d+)*)\b/gm)) {
    ids.add(match[2]!);
    if (match[1]!.startsWith('#')) headings.add(match[2]!);
  }
  return { ids, headings };
}

const TITLE =
  /\b(?:it|test|describe)(?:\.(?:only|skip|todo|fails|concurrent|sequential|(?:each|skipIf|runIf|for)\([^)]*\)))*\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g;

const files = ['test', 'e2e'].flatMap((folder) => [...sourceFiles(join(ROOT, folder))]);
const titles = files
  .filter((file) => file.endsWith('.test.ts'))
  .flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(TITLE)].map((match) => ({ file: relative(ROOT, file), title: match[2]! })),
  );
const cited = new Set(titles.flatMap(({ title }) => title.match(ID) ?? []));

describe('R-coverage: the requirement ids against the tests (issue 12)', () => {
  it(`finds ${relative(ROOT, REQUIREMENTS_FILE)} and the test titles`, () => {
    expect(
      existsSync(REQUIREMENTS_FILE),
      `${REQUIREMENTS_FILE} is missing: put a copy of shared/ beside the clone (as CI does)`,
    ).toBe(true);
    const { ids, headings } = requirements(readFileSync(REQUIREMENTS_FILE, 'utf8'));
    expect(ids.size, 'no "## R-n" heading or "- R-n.m" bullet found in the requirements').toBeGreaterThan(20);
    expect([...ids]).toEqual(expect.arrayContaining(['R-1', 'R-1.1', 'R-6.1', 'R-9.2', 'R-9.2.1', 'R-13']));
    expect([...headings]).toEqual(expect.arrayContaining(['R-1', 'R-8', 'R-13']));
    expect(headings.has('R-8.1')).toBe(false);
    expect(titles.length, 'no test title found: the title pattern is broken').toBeGreaterThan(100);
  });

  it('every requirement is cited in the title of at least one test', () => {
    if (!existsSync(REQUIREMENTS_FILE))
      throw new Error(`${REQUIREMENTS_FILE} is missing: put a copy of shared/ beside the clone (as CI does)`);
    const { ids, headings } = requirements(readFileSync(REQUIREMENTS_FILE, 'utf8'));
    const covered = (id: string) => cited.has(id) || (headings.has(id) && [...cited].some((other) => other.startsWith(`${id}.`)));
    const missing = [...ids].filter((id) => !covered(id));
    expect(
      missing,
      `requirements no test names in its title (add the id to the title of the test that covers it): ${missing.join(', ')}`,
    ).toEqual([]);
  });

  it('no test, comment or helper cites an id the requirements do not define', () => {
    if (!existsSync(REQUIREMENTS_FILE))
      throw new Error(`${REQUIREMENTS_FILE} is missing: put a copy of shared/ beside the clone (as CI does)`);
    const { ids } = requirements(readFileSync(REQUIREMENTS_FILE, 'utf8'));
    const unknown = files.flatMap((file) => {
      const found = readFileSync(file, 'utf8').match(ID) ?? [];
      return [...new Set(found)].filter((id) => !ids.has(id)).map((id) => `${relative(ROOT, file)}: ${id}`);
    });
    expect(unknown, `ids that are no requirement in ${relative(ROOT, REQUIREMENTS_FILE)}`).toEqual([]);
  });
});
