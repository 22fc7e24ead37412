/**
 * Every relative link of the README and the pages under docs/ reaches a file or folder of the repository,
 * and every anchor (`page.md#heading`, `#heading`) a heading of that page, as GitHub names them: the
 * reference moved from the README into docs/, and a link left pointing at an old README section would
 * lead nowhere.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

function markdownFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
    );
  return [join(ROOT, 'README.md'), ...walk(join(ROOT, 'docs'))];
}

/** The text outside fenced code blocks. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (heading === null) continue;
    const base = anchorOf(heading[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

describe('links of the README and docs/', () => {
  it('GitHub anchors: punctuation dropped, spaces to hyphens', () => {
    expect(anchorOf('Many machines, one table: `trial --shard` and `stats`')).toBe(
      'many-machines-one-table-trial---shard-and-stats',
    );
    expect(anchorOf("The harness's own cost in a trial")).toBe('the-harnesss-own-cost-in-a-trial');
  });

  it('every relative link reaches a file, and every anchor a heading of it', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const lines = prose(readFileSync(file, 'utf8')).join('\n');
      for (const m of lines.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1]!;
        if (/^[a-z]+:/i.test(link)) continue;
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? file : resolve(dirname(file), path);
        const where = `${relative(ROOT, file)}: ${link}`;
        if (!existsSync(target)) broken.push(`${where} (no such file)`);
        else if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(target).has(anchor))
          broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
