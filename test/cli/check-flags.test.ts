import { describe, expect, it } from 'vitest';
import { printable } from '../../src/app/check/check-text.js';
import { parseCheckFlags } from '../../src/cli/check-flags.js';

describe('check flags', () => {
  it('defaults: gate on FAIL and NOT_TESTED, no minimum, no outputs', () => {
    const flags = parseCheckFlags(['a.json', 'dir'], {});
    expect(flags.paths).toEqual(['a.json', 'dir']);
    expect([...flags.options.failOn]).toEqual(['FAIL', 'NOT_TESTED']);
    expect(flags.options.minScore).toBeNull();
    expect(flags.outputs).toEqual({});
  });

  it('--fail-on takes FAIL, NOT_TESTED (any case, - for _) or none; anything else is one clear error', () => {
    expect([...parseCheckFlags(['a'], { 'fail-on': ['fail'] }).options.failOn]).toEqual(['FAIL']);
    expect([...parseCheckFlags(['a'], { 'fail-on': ['not-tested,FAIL'] }).options.failOn]).toEqual(['NOT_TESTED', 'FAIL']);
    expect(parseCheckFlags(['a'], { 'fail-on': ['none'] }).options.failOn.size).toBe(0);
    expect(() => parseCheckFlags(['a'], { 'fail-on': ['PASS'] })).toThrow(
      'flag --fail-on accepts FAIL, NOT_TESTED, FALSE_SUCCESS, FALSE_FAILURE, LOST_TRANSACTION, DUPLICATE_EFFECT, LOST_EFFECT, EFFECTS_UNKNOWN or none, got "PASS"',
    );
    expect(() => parseCheckFlags(['a'], { 'fail-on': ['FAIL,,NOT_TESTED'] })).toThrow('empty item');
  });

  it('--fail-on also takes what a trial run measured beyond its verdict: FALSE_SUCCESS, FALSE_FAILURE, LOST_TRANSACTION', () => {
    expect([...parseCheckFlags(['a'], { 'fail-on': ['false-success,FALSE_FAILURE,lost_transaction'] }).options.failOn]).toEqual([
      'FALSE_SUCCESS',
      'FALSE_FAILURE',
      'LOST_TRANSACTION',
    ]);
    expect([...parseCheckFlags(['a'], {}).options.failOn]).toEqual(['FAIL', 'NOT_TESTED']);
  });

  it('--fail-on takes the effects verdicts that mean trouble (R-15): DUPLICATE_EFFECT, LOST_EFFECT, EFFECTS_UNKNOWN; opt-in', () => {
    expect([
      ...parseCheckFlags(['a'], { 'fail-on': ['FAIL,duplicate-effect,lost_effect,EFFECTS_UNKNOWN'] }).options.failOn,
    ]).toEqual(['FAIL', 'DUPLICATE_EFFECT', 'LOST_EFFECT', 'EFFECTS_UNKNOWN']);
    expect(() => parseCheckFlags(['a'], { 'fail-on': ['EXACTLY_ONCE'] })).toThrow(
      /accepts .*DUPLICATE_EFFECT.* or none, got "EXACTLY_ONCE"/,
    );
  });

  it('--min-score 0–100; outputs must differ; at least one path', () => {
    expect(parseCheckFlags(['a'], { 'min-score': ['80'] }).options.minScore).toBe(80);
    expect(() => parseCheckFlags(['a'], { 'min-score': ['101'] })).toThrow('from 0 to 100');
    expect(() => parseCheckFlags(['a'], { 'min-score': ['1e2'] })).toThrow('must be a number');
    expect(() => parseCheckFlags(['a'], { junit: ['x'], markdown: ['x'] })).toThrow('must name different files');
    expect(() => parseCheckFlags(['a'], { junit: ['x', 'y'] })).toThrow('given 2 times');
    expect(() => parseCheckFlags([], {})).toThrow('check needs at least one report file or folder');
  });

  it('console lines show control characters escaped, so a file name cannot rewrite the terminal', () => {
    expect(printable('a\u001b[2J\nb\u0085')).toBe('a\\u001b[2J\\u000ab\\u0085');
  });
});

describe('check --journal', () => {
  it('--journal goes with --html and must not name an output file', () => {
    expect(parseCheckFlags(['a'], { html: ['r.html'], journal: ['j.jsonl'] }).outputs).toEqual({
      html: 'r.html',
      journal: 'j.jsonl',
    });
    expect(() => parseCheckFlags(['a'], { journal: ['j.jsonl'] })).toThrow(
      '--journal feeds the HTML timeline: give --html <file> too',
    );
    expect(() => parseCheckFlags(['a'], { html: ['r.html'], journal: ['r.html'] })).toThrow('--journal is read, not written');
  });
});

describe('check outputs spelled two ways', () => {
  it('/ R-9.1: two outputs naming one file by different spellings are refused, not written over each other', () => {
    expect(() => parseCheckFlags(['a'], { junit: ['out/r.xml'], markdown: ['./out/r.xml'] })).toThrow(
      'must name different files',
    );
    expect(() => parseCheckFlags(['a'], { junit: ['out/r.xml'], html: ['out/../out/r.xml'] })).toThrow(
      'must name different files',
    );
  });
});
