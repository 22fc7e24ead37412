/**
 * Why a file is not JSON, in words that quote nothing of it. V8's `JSON.parse` message copies up to 20
 * characters of the input (`Unexpected token 'r', "root:$6$…" is not valid JSON`); a path handed to
 * `check` or `stats` may be a link to `/etc/shadow` or `/proc/self/environ`, and the message would carry
 * those bytes into stdout, JUnit, Markdown, HTML and a CI step summary. Only where the text goes wrong is
 * said (line and column), taken from the message's position when V8 gives one.
 */
import { errorMessage } from '../../../domain/error-message.js';

/** Line and column (1-based) of a UTF-16 offset in the text. */
function lineColumn(text: string, offset: number): string {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line += 1;
      start = i + 1;
    }
  }
  return `line ${line}, column ${offset - start + 1}`;
}

/** A value can only start with one of these (after white space). */
const VALUE_START = /[{["\-0-9tfn]/;

/** The problem of a `JSON.parse(text)` that threw `error`, without any of the text's content. */
export function jsonSyntaxProblem(error: unknown, text: string): string {
  const message = errorMessage(error);
  if (/Unexpected end of JSON input/.test(message)) return 'it ends before the JSON is complete';
  const position = /at position (\d+)/.exec(message);
  if (position !== null) return `invalid JSON at ${lineColumn(text, Number(position[1]))}`;
  const first = text.search(/\S/);
  if (first >= 0 && !VALUE_START.test(text[first]!)) return `invalid JSON at ${lineColumn(text, first)}`;
  return 'invalid JSON';
}
