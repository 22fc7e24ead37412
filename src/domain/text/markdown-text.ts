/**
 * Text from outside (tool names, task ids, arm names, an endpoint's error text, an agent's stderr tail)
 * made inert as one inline run of Markdown, for every Markdown the harness writes: `check --markdown`
 * and its step summary, `trial`'s summary.md and `stats --markdown`. GitHub and GitLab render inline
 * HTML, images and links, and `cat summary.md` hands ESC/OSC bytes to a terminal, so: what could drive a
 * terminal or hide itself (controls, bidi controls, zero-width characters) shown as `\uXXXX` as on the
 * terminal (`terminal-text.ts`), line breaks as ` ⏎ `, HTML's special characters as entities, and the
 * punctuation that can open emphasis, code, a link, an image, a heading or a table cell backslash-escaped.
 * Pure: no I/O.
 */
import { escapeTerminalText } from './terminal-text.js';

/** One value as inline Markdown text that cannot open a link, an image, a table cell, a heading or a tag. */
export function markdownInline(text: string): string {
  return escapeTerminalText(text.replace(/\r\n|\r|\n/g, ' ⏎ '))
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_{}[\]#!|~]/g, (c) => `\\${c}`);
}
