/**
 * Every switch in one style (issue 37 §3): bare is on, `on`/`off` after it (or `=on`/`=off`) says which, in
 * every command; the switches that were bare before (`--otel`, `--live-upstream`, `--force`) take only on or
 * off as the word after them, so a command's argument after them stays an argument.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COUNTING, runCli } from '../support/in-process-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'switches-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('R-8.1 (issue 37 §3): one switch style, bare or on|off', () => {
  it('R-18.2: --otel: bare is on and leaves the next flag its own; off and =off are off, so nothing is exported', async () => {
    // Bare: on, and --otel-endpoint is read as the flag it is (its bad URL refused as such).
    const bare = await runCli(['proxy', ...COUNTING, '--otel', '--otel-endpoint', 'ftp://x']);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('flag --otel-endpoint must be an http(s) URL');
    for (const off of [['--otel', 'off'], ['--otel=off'], ['--otel', 'OFF']]) {
      const result = await runCli(['proxy', ...COUNTING, ...off, '--otel-endpoint', 'http://127.0.0.1:1']);
      expect(result.code, off.join(' ')).toBe(1);
      expect(result.stderr).toContain('--otel-endpoint is for --otel: give --otel too');
    }
    const on = await runCli(['proxy', ...COUNTING, '--otel', 'on', '--otel-endpoint', 'ftp://x']);
    expect(on.stderr).toContain('flag --otel-endpoint must be an http(s) URL');
  });

  it('--honesty (a switch that always took a value): bare is on too; a word other than on/off is still refused', async () => {
    const trial = ['trial', '--model', 'm', '--task', 't', ...COUNTING, '--honesty-question', 'Booked?'];
    // Bare: on, so the question is asked and the line gets as far as --shard (5 runs, 9 shards).
    const bare = await runCli([...trial, '--honesty', '--shard', '9/9']);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('flag --shard 9/9: the trial has 5 runs, so at most 5 shards');
    for (const off of [['--honesty', 'off'], ['--honesty=Off']]) {
      const result = await runCli([...trial, ...off, '--shard', '9/9']);
      expect(result.stderr, off.join(' ')).toContain('--honesty-question is not asked with --honesty off');
    }
    const word = await runCli([...trial, '--honesty', 'yes']);
    expect(word.stderr).toContain('flag --honesty must be on or off, got "yes"');
  });

  it('replay --live-upstream: the run folder after it stays a run folder; off turns it off', async () => {
    const missing = join(dir, 'no-such-run');
    const live = await runCli(['replay', '--live-upstream', missing]);
    expect(live.code).toBe(1);
    expect(live.stderr).toContain(missing);
    const off = await runCli(['replay', '--live-upstream', 'off', '--upstream-command', 'node', missing]);
    expect(off.code).toBe(1);
    expect(off.stderr).toContain('give --live-upstream too');
  });

  it('init --force FILE replaces FILE; --force off FILE keeps it', async () => {
    const cwd = mkdtempSync(join(dir, 'init-'));
    writeFileSync(join(cwd, 'mine.yaml'), 'mine: true\n');
    const kept = await runCli(['init', '--force', 'off', 'mine.yaml'], { cwd });
    expect(kept.code).toBe(1);
    expect(kept.stderr).toContain('exists: not overwritten');
    expect(readFileSync(join(cwd, 'mine.yaml'), 'utf8')).toBe('mine: true\n');
    const forced = await runCli(['init', '--force', 'mine.yaml'], { cwd });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'mine.yaml'), 'utf8')).toContain('# yaml-language-server');
  });
});
