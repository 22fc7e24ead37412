/**
 * How much of a transcript the HTML page draws: the limits of one text, one folded conversation, the rows
 * of a run, and the characters of the whole page, shared by every run of the page (`TranscriptBudget`).
 */
import { htmlText as h } from './escape.js';

/** How much of a transcript the page draws (see docs/commands/check.md, `--html`). */
export const TRANSCRIPT_LIMITS = {
  /** Characters of one text in a row (a message, an answer, a result, arguments). */
  textChars: 2000,
  /** Characters of one message inside a request's folded whole conversation. */
  foldedMessageChars: 400,
  /** Messages of one folded whole conversation (its last ones). */
  foldedMessages: 60,
  /** Entries drawn per run. */
  rows: 2000,
  /**
   * Characters of transcript text (as escaped) the whole page draws, all runs together (each row also
   * costs {@link ROW_COST}); the last text drawn may pass it by one text's length.
   */
  pageChars: 4_000_000,
} as const;

/** What a drawn row costs the page's budget beyond its texts (its markup), so rows without text are bounded too. */
const ROW_COST = 200;

/** The characters the page may still draw, shared by every run of one page. */
export class TranscriptBudget {
  constructor(public left: number = TRANSCRIPT_LIMITS.pageChars) {}

  /** The text escaped, cut to `max` characters and to what the page has left, saying what was cut. */
  text(text: string, max: number = TRANSCRIPT_LIMITS.textChars): string {
    let room = Math.max(0, Math.min(max, this.left));
    if (text.length <= room) {
      const shown = h(text);
      // Charged as escaped: invisible characters drawn as `\uXXXX` are six characters each on the page.
      this.left = Math.max(0, this.left - shown.length);
      return shown;
    }
    const why = room < max ? "this page's transcript limit is reached" : `cut at ${max} characters`;
    // Never cut a surrogate pair in two.
    if (room > 0 && /[\ud800-\udbff]/.test(text[room - 1]!)) room -= 1;
    const shown = h(text.slice(0, room));
    this.left = Math.max(0, this.left - shown.length);
    return `${shown}<span class="cut">… (${text.length - room} more character(s) not shown: ${why}; the run file has them all)</span>`;
  }

  /** A row's fixed cost; false when the page has no room left for it. */
  row(): boolean {
    if (this.left < ROW_COST) return false;
    this.left -= ROW_COST;
    return true;
  }
}
