import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatClassificationLines, type ToolClassification } from '../../../src/domain/judging/classification.js';
import { escapeTerminalLines, escapeTerminalText } from '../../../src/domain/text/terminal-text.js';

/**
 * An oracle written apart from the implementation's regular expression: code points a terminal acts on or
 * that hide themselves. Output must contain none of them.
 */
function dangerous(codePoint: number): boolean {
  return (
    codePoint < 0x20 ||
    (codePoint >= 0x7f && codePoint <= 0x9f) || // C0, DEL, C1 (0x9b: 8-bit CSI)
    codePoint === 0x00ad ||
    codePoint === 0x061c ||
    codePoint === 0x180e ||
    codePoint === 0x3164 ||
    codePoint === 0xfeff ||
    (codePoint >= 0x200b && codePoint <= 0x200f) ||
    (codePoint >= 0x2028 && codePoint <= 0x202e) ||
    (codePoint >= 0x2060 && codePoint <= 0x2069) ||
    (codePoint >= 0xfe00 && codePoint <= 0xfe0f) ||
    (codePoint >= 0xd800 && codePoint <= 0xdfff) ||
    (codePoint >= 0xe0000 && codePoint <= 0xe01ef)
  );
}

function dangerousIn(text: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < text.length;) {
    const codePoint = text.codePointAt(i)!;
    if (dangerous(codePoint)) found.push(codePoint.toString(16));
    i += codePoint > 0xffff ? 2 : 1;
  }
  return found;
}

const HOSTILE = [
  '\u001b',
  '\u001b[2J',
  '\u001b]0;owned\u0007',
  '\u009b',
  '\u0085',
  '\u007f',
  '\r',
  '\n',
  '\t',
  '\u0000',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\ufeff',
  '\u00ad',
  '\u202e',
  '\u202d',
  '\u2066',
  '\u2069',
  '\u200e',
  '\u061c',
  '\u2028',
  '\u2029',
  '\u00a0',
  '\u3000',
  '\u3164',
  '\ufe0f',
  '\u{e0041}',
  '\u{e0100}',
  '\ud800',
  '\udfff',
];

/** Strings mixing any UTF-16 units (lone surrogates too), any code points and the hostile characters above. */
const anyText = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)) }),
  fc.array(fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'grapheme-ascii' }))).map((parts) => parts.join('')),
);

describe("escapeTerminalText: text from outside, safe on the operator's terminal (R-8.4, R-8.7)", () => {
  const cases: Array<[string, string]> = [
    ['get\u200b_orders', 'get\\u200b_orders'],
    ['\u001b[2J\u001b]0;owned\u0007', '\\u001b[2J\\u001b]0;owned\\u0007'],
    ['ok\r[cuonztech-agent-harness] proxy ready: forged', 'ok\\u000d[cuonztech-agent-harness] proxy ready: forged'],
    ['line\nnext', 'line\\u000anext'],
    ['\u009b31mred', '\\u009b31mred'],
    ['create_\u202eredro', 'create_\\u202eredro'],
    ['tag\u{e0041}', 'tag\\udb40\\udc41'],
    ['lone \ud800 surrogate', 'lone \\ud800 surrogate'],
    ['a\u00a0b', 'a\\u00a0b'],
    ['plain text, é 日本 😀 → … \\u200b stays', 'plain text, é 日本 😀 → … \\u200b stays'],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${expected}`, () => {
      expect(escapeTerminalText(input)).toBe(expected);
    });
  }

  it('keeps line feeds only in escapeTerminalLines', () => {
    expect(escapeTerminalLines('a\u001b\nb\r\n')).toBe('a\\u001b\nb\\u000d\n');
  });

  it('property: the output holds no character a terminal acts on or that hides itself, and no line feed', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const out = escapeTerminalText(text);
        expect(dangerousIn(out)).toEqual([]);
        expect(out).not.toContain('\n');
      }),
      { numRuns: 2000 },
    );
  });

  it('property: idempotent, and printable ASCII passes unchanged', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const once = escapeTerminalText(text);
        expect(escapeTerminalText(once)).toBe(once);
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) }), (text) => {
        expect(escapeTerminalText(text)).toBe(text);
      }),
    );
  });

  it('property: inside JSON the escapes are transparent (a log line keeps its value) and line feeds stay', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const json = JSON.stringify({ msg: text });
        expect(JSON.parse(escapeTerminalLines(json))).toEqual({ msg: text });
        const lines = `${json}\n${json}\n`;
        expect(escapeTerminalLines(lines).split('\n')).toHaveLength(3);
        expect(dangerousIn(escapeTerminalLines(lines).replaceAll('\n', ''))).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });

  it('R-8.4: the start-up classification shows a zero-width character, bidi override and ESC visibly', () => {
    const tool = (name: string): ToolClassification => ({
      name,
      class: 'unclassified',
      reason: 'no annotation, no pattern match',
      keyFields: [],
    });
    const lines = formatClassificationLines([tool('get\u200b_orders'), tool('x\u202e\u001b[2J')]);
    expect(lines[1]).toBe('  unclassified get\\u200b_orders  (no annotation, no pattern match)');
    expect(lines[2]).toBe('  unclassified x\\u202e\\u001b[2J  (no annotation, no pattern match)');
    for (const line of lines) expect(dangerousIn(line)).toEqual([]);
  });
});
