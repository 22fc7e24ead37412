/**
 * Text from outside (an upstream's stderr, tool names, error messages, flag values) made safe for the
 * operator's terminal. Every character that could drive the terminal or hide itself becomes a visible
 * JSON-style escape `\uXXXX` (lower-case hex; a character beyond U+FFFF as its two surrogate escapes):
 * - controls: C0 (ESC starts ANSI/OSC sequences that clear the screen or retitle the window; CR and LF
 *   could forge a `[cuonztech-agent-harness] …` line), DEL and C1 (U+009B is an 8-bit CSI);
 * - format characters (Unicode Cf): bidi overrides and isolates (U+202A–U+202E, U+2066–U+2069), marks
 *   (U+200E, U+200F, U+061C), zero-width space and joiners (U+200B–U+200D), word joiner, BOM, soft
 *   hyphen, tag characters;
 * - line and paragraph separators, lone surrogates, unassigned code points (a terminal may draw them as
 *   nothing; a character newer than the runtime's Unicode tables is shown escaped, which is harmless),
 *   spaces other than U+0020 (they look like one), and characters that render as nothing (Hangul fillers, variation selectors, combining grapheme joiner,
 *   Mongolian free variation selectors, Khmer inherent vowels, the Braille blank).
 * Everything else, `\` included, passes unchanged, so the result is idempotent and JSON stays valid JSON
 * with the same value (each escape is a JSON string escape). Pure: no I/O.
 */

const UNSAFE = new RegExp(
  [
    '[\\p{Cc}\\p{Cf}\\p{Cn}\\p{Cs}\\p{Zl}\\p{Zp}]',
    '(?:(?! )\\p{Zs})',
    '[\\u034f\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u2800\\u3164\\ufe00-\\ufe0f\\uffa0\\u{e0100}-\\u{e01ef}]',
  ].join('|'),
  'gu',
);

/** The same set with the line feed left alone, for multi-line text such as NDJSON logs. */
const UNSAFE_BUT_NEWLINE = new RegExp(`(?!\\n)(?:${UNSAFE.source})`, 'gu');

function escapeUnit(unit: number): string {
  return `\\u${unit.toString(16).padStart(4, '0')}`;
}

function escapeCharacter(character: string): string {
  let out = '';
  for (let i = 0; i < character.length; i++) out += escapeUnit(character.charCodeAt(i));
  return out;
}

/** Printable ASCII holds nothing to escape: the common case, answered without the Unicode-property scan. */
const PLAIN = /^[\x20-\x7e]*$/;
const PLAIN_LINES = /^[\x20-\x7e\n]*$/;

/** One line for the terminal: every unsafe character (see the file comment), newlines included, escaped. */
export function escapeTerminalText(text: string): string {
  return PLAIN.test(text) ? text : text.replace(UNSAFE, escapeCharacter);
}

/** The same, keeping line feeds: for text that is several lines by design (structured logs). */
export function escapeTerminalLines(text: string): string {
  return PLAIN_LINES.test(text) ? text : text.replace(UNSAFE_BUT_NEWLINE, escapeCharacter);
}
