/**
 * What is kept of a text too large to keep whole, wherever the harness writes one: an agent program's
 * transcript past its bound (`src/app/trial/program-transcript.ts`) and a recording past its size budget
 * (`src/adapters/cassette/cassette-budget.ts`). The head of the text, how much was left out and the
 * sha256 of the whole (the caller hashes: the domain has no crypto), so a reader sees what it was and can
 * tell two cut texts apart.
 */

/** How many characters of a text that is not kept whole are kept. */
export const PREVIEW_CHARS = 1024;

/** The first `chars` characters of `text`, never half a surrogate pair. */
export function textHead(text: string, chars: number = PREVIEW_CHARS): string {
  if (text.length <= chars) return text;
  const end = chars > 0 && /[\ud800-\udbff]/.test(text[chars - 1]!) ? chars - 1 : chars;
  return text.slice(0, end);
}

/**
 * The text itself when it is short; else its head, `… (N more characters not kept: <why>; <hash>)`.
 * `hash` names its kind: `sha256:<hex>`, or `hash:<cyrb53>` where only equality matters.
 */
export function notKeptText(text: string, hash: string, why: string): string {
  if (text.length <= PREVIEW_CHARS) return text;
  const head = textHead(text);
  return `${head}… (${text.length - head.length} more characters not kept: ${why}; ${hash})`;
}
