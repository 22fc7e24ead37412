/**
 * Escaping for the three text formats `check` writes. Tool names and arguments come from the agent and
 * the upstream, so they may hold anything: `</testcase>`, `]]>`, `<script>`, control characters, lone
 * surrogates, bidi overrides and zero-width characters (a write's name made to read as another tool's).
 * Each function makes a string inert in its format; none of them trusts its input. What could drive a
 * terminal or hide itself is shown as `\uXXXX`, exactly as on the terminal (`src/domain/text/terminal-text.ts`).
 */
import { markdownInline } from '../../domain/text/markdown-text.js';
import { escapeTerminalLines } from '../../domain/text/terminal-text.js';

/** Characters XML 1.0 forbids anywhere (C0 controls except TAB/LF/CR, lone surrogates, U+FFFE/U+FFFF). */
const XML_FORBIDDEN =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Removes what XML 1.0 forbids (it cannot be escaped either: `&#1;` is not well-formed). */
export function xmlClean(text: string): string {
  return text.replace(XML_FORBIDDEN, '');
}

/** Text content of an XML element: what hides itself or drives a terminal shown as `\uXXXX` (see {@link visibleControls}). */
export function xmlText(text: string): string {
  return xmlClean(visibleControls(text)).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An XML attribute value (double-quoted); line breaks kept as character references. */
export function xmlAttr(text: string): string {
  return xmlText(text)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

/** HTML text or a double-quoted attribute value. Control characters become visible `\uXXXX`. */
export function htmlText(text: string): string {
  return visibleControls(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A JSON member this short (`"date":"2026-01-01",`) is never broken inside, not even at its hyphens. */
const UNBROKEN_MEMBER = 24;

/**
 * Escaped HTML of a JSON value (tool arguments) that a narrow column wraps between its members — a
 * `<wbr>` after each comma, a short member kept whole — and inside a member only when it is long (at a
 * space or a hyphen first, mid-word only when one word is wider than the line). Pieces holding markup
 * (a "… more characters" note) are left as they are.
 */
export function jsonBreaks(escapedHtml: string): string {
  const pieces = escapedHtml.split(',');
  return pieces
    .map((piece, i) => {
      const text = i < pieces.length - 1 ? `${piece},` : piece;
      const visible = piece.replace(/&[#a-z0-9]+;/gi, 'x').length + 1;
      return visible <= UNBROKEN_MEMBER && !piece.includes('<') && piece !== '' ? `<span class="nb">${text}</span>` : text;
    })
    .join('<wbr>');
}

/**
 * The terminal's escape (controls, bidi controls, zero-width and other invisible characters, lone
 * surrogates, line separators → `\uXXXX`), keeping TAB and LF, which the formats handle themselves.
 */
export function visibleControls(text: string): string {
  return text.split('\t').map(escapeTerminalLines).join('\t');
}

/** Markdown inline text: one value that cannot open a link, a table cell, a heading or a tag (see {@link markdownInline}). */
export const mdText = markdownInline;

/** A fenced code block that no backtick run inside the text can close early. */
export function mdFence(text: string, info = 'text'): string {
  let longest = 2;
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const fence = '`'.repeat(longest + 1);
  return `${fence}${info}\n${visibleControls(text)}\n${fence}`;
}
