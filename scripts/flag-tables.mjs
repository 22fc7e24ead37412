/**
 * The flag tables of docs/commands/trial.md and probe.md, made from the commands' own `--help` so the page
 * and the help cannot drift apart: `npm run build && node scripts/flag-tables.mjs` rewrites the block
 * between `<!-- flags: COMMAND -->` and `<!-- /flags -->` of each page that has one.
 * The key table of docs/config.md (between `<!-- config-keys -->` and `<!-- /config-keys -->`) is made
 * from the trial config's keys, which are the flags' spec. test/docs-flags.test.ts renders the same tables
 * in process and fails when a page's block is not it (and when any command's page leaves a flag of its
 * help unmentioned).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The block of a page, with its markers: the text to replace, or null when the page has none. */
export function flagBlock(page, command) {
  const start = `<!-- flags: ${command} -->`;
  const from = page.indexOf(start);
  if (from === -1) return null;
  const to = page.indexOf('<!-- /flags -->', from);
  return to === -1 ? null : page.slice(from, to + '<!-- /flags -->'.length);
}

/**
 * One table per help section (`Agent:`, `Model:` …), a row per option line: the flag with its value
 * placeholder, and the help's description (a `|` escaped). Sections a reader does not look up are left
 * out (`Options:` holds only `--help`).
 */
export function renderFlagTable(command, help) {
  const out = [`<!-- flags: ${command} -->`, `<!-- made from \`${command} --help\` by scripts/flag-tables.mjs -->`];
  for (const block of help.trimEnd().split('\n\n')) {
    const [title, ...lines] = block.split('\n');
    if (title === undefined || !title.endsWith(':') || ['Usage:', 'Examples:', 'Options:'].includes(title)) continue;
    out.push('', `**${title.slice(0, -1)}**`, '', '| flag | meaning |', '|---|---|');
    let last = -1;
    for (const line of lines) {
      const match = /^ {2}(?:-\w, )?(--[\w-]+)( <[^>]+>| \[[^\]]+\])?\s{2,}(.*)$/.exec(line);
      if (match === null) {
        // A description that goes on on the next line belongs to the row above.
        if (last !== -1 && line.trim() !== '') out[last] = `${out[last].slice(0, -2)} ${escape(line.trim())} |`;
        continue;
      }
      const [, flag, value = '', text] = match;
      out.push(`| \`${flag}${value}\` | ${escape(text.trim())} |`);
      last = out.length - 1;
    }
  }
  out.push('', '<!-- /flags -->');
  return out.join('\n');
}

/**
 * The key table of docs/config.md, between `<!-- config-keys -->` and `<!-- /config-keys -->`: a row per
 * key of the trial config file (`TRIAL_CONFIG_KEYS`, made from the flags' spec), its flag (and the other
 * spellings of that flag, which set the same key) and what its value is.
 */
export function renderConfigTable(keys, spellings) {
  const out = [
    '<!-- config-keys -->',
    "<!-- made from the flags' spec (src/cli/trial-config-keys.ts) by scripts/flag-tables.mjs -->",
    '',
    '| key | flag | value |',
    '|---|---|---|',
  ];
  const seen = new Set();
  for (const { key, flag, codec } of keys) {
    const others = [...spellings].filter(([, of]) => of === flag).map(([spelling]) => `\`--${spelling}\``);
    const flagText = seen.has(flag)
      ? `(what \`--${flag}\` reads)`
      : `\`--${flag}\`${others.length === 0 ? '' : ` (${others.join(', ')} ${others.length === 1 ? 'is' : 'are'} the same key)`}`;
    seen.add(flag);
    out.push(`| \`${key}\` | ${flagText} | ${escape(codec.says)} |`);
  }
  out.push('', '<!-- /config-keys -->');
  return out.join('\n');
}

/** The config table's block of a page, with its markers, or null. */
export function configBlock(page) {
  const from = page.indexOf('<!-- config-keys -->');
  if (from === -1) return null;
  const to = page.indexOf('<!-- /config-keys -->', from);
  return to === -1 ? null : page.slice(from, to + '<!-- /config-keys -->'.length);
}

function escape(text) {
  return text.replaceAll('|', '\\|');
}

const PAGES = ['trial', 'probe'];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  for (const command of PAGES) {
    const file = join(root, 'docs/commands', `${command}.md`);
    const page = readFileSync(file, 'utf8');
    const block = flagBlock(page, command);
    if (block === null) throw new Error(`${file} has no <!-- flags: ${command} --> … <!-- /flags --> block`);
    const help = execFileSync(process.execPath, [join(root, 'dist/cli/bin.js'), command, '--help'], { encoding: 'utf8' });
    const next = page.replace(block, () => renderFlagTable(command, help));
    if (next === page) continue;
    writeFileSync(`${file}.tmp`, next);
    renameSync(`${file}.tmp`, file);
    console.log(`${file}: flag table written`);
  }
  const configFile = join(root, 'docs/config.md');
  const configPage = readFileSync(configFile, 'utf8');
  const block = configBlock(configPage);
  if (block === null) throw new Error(`${configFile} has no <!-- config-keys --> … <!-- /config-keys --> block`);
  const { TRIAL_CONFIG_KEYS, FLAG_SPELLINGS } = await import(join(root, 'dist/src/cli/trial-config-keys.js'));
  const next = configPage.replace(block, () => renderConfigTable(TRIAL_CONFIG_KEYS, FLAG_SPELLINGS));
  if (next !== configPage) {
    writeFileSync(`${configFile}.tmp`, next);
    renameSync(`${configFile}.tmp`, configFile);
    console.log(`${configFile}: key table written`);
  }
}
