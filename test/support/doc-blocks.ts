/**
 * The shell blocks of the README and `docs/` (the convention is in docs/development.md, "Commands in the
 * docs"): fenced blocks tagged `sh`, `bash` or `console` are run; `console` blocks run only their
 * `$ ` lines (the rest is output). HTML comments on the lines directly above the fence steer the test:
 *   <!-- not run: REASON -->     the block is not run (needs a real model, a key, the network, …)
 *   <!-- exit: N -->             the block ends with exit code N (default 0)
 *   <!-- output: TEXT -->        TEXT must appear in what the block printed (stdout or stderr); repeatable
 *   <!-- runs until: TEXT -->    the block is one command that serves until stopped: once TEXT is
 *                                printed it gets SIGINT and must exit 0
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface DocBlock {
  /** e.g. `docs/commands/trial.md:12` (the line of the opening fence). */
  where: string;
  file: string;
  lang: 'sh' | 'bash' | 'console';
  /** The shell script to run: the block, or a console block's commands. */
  script: string;
  notRun?: string;
  exit: number;
  outputs: string[];
  runsUntil?: string;
}

const RUN_LANGS = new Set(['sh', 'bash', 'console']);

/** README.md and every Markdown file under docs/, in a stable order. */
export function docFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []));
  return [join(root, 'README.md'), ...walk(join(root, 'docs'))].map((f) => relative(root, f));
}

/** The commands of a console block: `$ ` lines, with the lines they continue (a trailing `\`). */
function consoleScript(lines: string[]): string {
  const out: string[] = [];
  let continuing = false;
  for (const line of lines) {
    if (continuing || line.startsWith('$ ')) {
      out.push(continuing ? line : line.slice(2));
      continuing = line.endsWith('\\');
    }
  }
  return out.join('\n');
}

export function blocksOf(file: string, text: string): DocBlock[] {
  const lines = text.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i]!);
    if (open === null) continue;
    let end = i + 1;
    while (end < lines.length && !lines[end]!.startsWith('```')) end++;
    const lang = open[1]!;
    if (RUN_LANGS.has(lang)) {
      const body = lines.slice(i + 1, end);
      const block: DocBlock = {
        where: `${file}:${i + 1}`,
        file,
        lang: lang as DocBlock['lang'],
        script: lang === 'console' ? consoleScript(body) : body.join('\n'),
        exit: 0,
        outputs: [],
      };
      for (let j = i - 1; j >= 0; j--) {
        const marker = /^<!--\s*(not run|exit|output|runs until):\s*(.*?)\s*-->$/.exec(lines[j]!);
        if (marker === null) break;
        const [, key, value] = marker as unknown as [string, string, string];
        if (key === 'not run') block.notRun = value;
        else if (key === 'exit') block.exit = Number(value);
        else if (key === 'output') block.outputs.push(value);
        else block.runsUntil = value;
      }
      blocks.push(block);
    }
    i = end;
  }
  return blocks;
}

export function allBlocks(root: string): DocBlock[] {
  return docFiles(root).flatMap((f) => blocksOf(f, readFileSync(join(root, f), 'utf8')));
}
