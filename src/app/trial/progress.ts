/**
 * Progress on stderr: on a terminal one bar redrawn in place (runs done / total, PASS / FAIL /
 * NOT_TESTED so far, ETA); otherwise one line per finished run. Other lines for the operator (notices)
 * go through `line`, so on a terminal they take the bar's place and the bar is drawn again below them.
 */
import { escapeTerminalText } from '../../domain/text/terminal-text.js';
import type { TrialEvent } from './trial-deps.js';

export class ProgressView {
  private counts = { PASS: 0, FAIL: 0, NOT_TESTED: 0 };
  private startedMs = 0;
  private drawn = false;
  private last = { done: 0, total: 0 };

  constructor(
    private readonly write: (text: string) => void,
    private readonly isTty: boolean,
    private readonly now: () => number,
    private readonly prefix: string,
  ) {}

  handle(event: TrialEvent): void {
    if (event.kind === 'start') {
      this.startedMs = this.now();
      if (this.isTty) this.draw(0, event.total);
      return;
    }
    const verdict = event.verdict as keyof ProgressView['counts'];
    if (verdict in this.counts) this.counts[verdict]++;
    if (this.isTty) this.draw(event.done, event.total);
    else {
      // A reason may quote an agent program's stderr: escaped, it can neither drive the terminal nor forge a line.
      const why = event.verdict === 'NOT_TESTED' ? `: ${escapeTerminalText(event.reason)}` : '';
      this.write(
        `${this.prefix} run ${event.run.id} (${event.done}/${event.total}): ${event.verdict}${why} (${event.toolCalls} tool call${event.toolCalls === 1 ? '' : 's'}, ${(event.durationMs / 1000).toFixed(1)} s)\n`,
      );
    }
  }

  /** Writes one whole line (ending in a line feed) above the bar, which is then drawn again. */
  line(text: string): void {
    if (!this.isTty || !this.drawn) return this.write(text);
    this.write(`\r\x1b[K${text}`);
    this.draw(this.last.done, this.last.total);
  }

  /** Ends the bar's line (call once at the end). */
  finish(): void {
    if (this.isTty && this.drawn) this.write('\n');
  }

  private draw(done: number, total: number): void {
    this.last = { done, total };
    const width = 24;
    const filled = total === 0 ? width : Math.round((done / total) * width);
    const elapsed = this.now() - this.startedMs;
    const eta = done === 0 ? '?' : `${Math.round(((elapsed / done) * (total - done)) / 1000)} s`;
    const { PASS, FAIL, NOT_TESTED } = this.counts;
    this.write(
      `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}  PASS ${PASS}  FAIL ${FAIL}  NOT_TESTED ${NOT_TESTED}  ETA ${eta}\x1b[K`,
    );
    this.drawn = true;
  }
}
