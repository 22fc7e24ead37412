/**
 * The requirement ids of the project's own index, `docs/requirements.md`, against the tests, like the MCP
 * TypeScript SDK's `test/e2e/coverage.test.ts`: every requirement is cited by at least one test, and no
 * test cites one that does not exist.
 *
 * - A requirement is an id that opens a heading (`## R-8 Proxy`) or a bullet (`- R-8.1 …`, `  - R-9.2.1 …`).
 * - A test cites an id by naming it in its title: the first argument of `it(…)`, `test(…)` or
 *   `describe(…)` (modifiers such as `.concurrent`, `.skipIf(…)`, `.each(…)` included) in a `*.test.ts`
 *   file under `test/` or `e2e/`. A heading counts as cited when it or an id under it is (`R-8.1` cites
 *   `R-8`); a bullet must be cited itself.
 * - An unknown id is any `R-n(.n)*` written anywhere in those folders (titles, comments, tables) that is
 *   no requirement of the index: a typo, or a number the index dropped.
 *
 * Where the team's shared specification lies beside the clone (the development machines and their CI, never
 * a user's clone), a last check compares the index with it: an id of the index that the specification does
 * not define fails; the specification's ids that the index does not have yet are only listed (an id enters
 * the index when the change that implements it lands). Without the specification that check is skipped.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const REQUIREMENTS_FILE = resolve(ROOT, 'docs/requirements.md');
/** The team's specification, beside the clone on the development machines only. */
const SPECIFICATION_FILE = resolve(ROOT, '..', 'shared', 'spec', 'REQUIREMENTS.md');
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

const index = requirements(readFileSync(REQUIREMENTS_FILE, 'utf8'));

describe('R-coverage: the requirement ids of docs/requirements.md against the tests', () => {
  it(`finds ${relative(ROOT, REQUIREMENTS_FILE)} and the test titles`, () => {
    const { ids, headings } = index;
    expect(ids.size, 'no "## R-n" heading or "- R-n.m" bullet found in the requirements').toBeGreaterThan(20);
    expect([...ids]).toEqual(expect.arrayContaining(['R-1', 'R-1.1', 'R-6.1', 'R-9.2', 'R-9.2.1', 'R-13']));
    expect([...headings]).toEqual(expect.arrayContaining(['R-1', 'R-8', 'R-13']));
    expect(headings.has('R-8.1')).toBe(false);
    expect(titles.length, 'no test title found: the title pattern is broken').toBeGreaterThan(100);
  });

  it('every requirement is cited in the title of at least one test', () => {
    const { ids, headings } = index;
    const covered = (id: string) => cited.has(id) || (headings.has(id) && [...cited].some((other) => other.startsWith(`${id}.`)));
    const missing = [...ids].filter((id) => !covered(id));
    expect(
      missing,
      `requirements no test names in its title (add the id to the title of the test that covers it): ${missing.join(', ')}`,
    ).toEqual([]);
  });

  it('no test, comment or helper cites an id the requirements do not define', () => {
    const { ids } = index;
    const unknown = files.flatMap((file) => {
      const found = readFileSync(file, 'utf8').match(ID) ?? [];
      return [...new Set(found)].filter((id) => !ids.has(id)).map((id) => `${relative(ROOT, file)}: ${id}`);
    });
    expect(unknown, `ids that are no requirement in ${relative(ROOT, REQUIREMENTS_FILE)}`).toEqual([]);
  });
});

describe.skipIf(!existsSync(SPECIFICATION_FILE))('R-coverage: the index against the shared specification', () => {
  it('every id of the index is defined by the specification; ids the index does not have yet are listed', () => {
    const specified = requirements(readFileSync(SPECIFICATION_FILE, 'utf8')).ids;
    const notSpecified = [...index.ids].filter((id) => !specified.has(id));
    expect(notSpecified, `ids of docs/requirements.md that ${SPECIFICATION_FILE} does not define`).toEqual([]);
    const notYet = [...specified].filter((id) => !index.ids.has(id));
    if (notYet.length > 0)
      console.info(`R-coverage: the specification defines ids the index does not have yet: ${notYet.join(', ')}`);
  });
});

if (!existsSync(SPECIFICATION_FILE))
  console.info('R-coverage: no shared specification beside the clone; the index is checked against the tests only');
