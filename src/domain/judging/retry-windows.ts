/**
 * F2's retry_after windows per tool: while a 429's wait runs, calls to the same tool with other
 * arguments are an observation (OTHER_CALL_DURING_RETRY_AFTER), not a violation; the same operation re-sent
 * early is judged by the operation itself. Expired windows are dropped as calls arrive.
 */
interface Window {
  opKey: string;
  start: number;
  requiredMs: number;
}

export class RetryWindows {
  private readonly byTool = new Map<string, Window[]>();

  /** A 429 was given for `opKey` of `tool` at `start`, asking to wait `requiredMs`. */
  open(tool: string, opKey: string, start: number, requiredMs: number): void {
    const windows = this.byTool.get(tool) ?? [];
    windows.push({ opKey, start, requiredMs });
    this.byTool.set(tool, windows);
  }

  /** How many open windows of `tool` belong to other operations than `opKey` at time `now`. */
  othersOpen(tool: string, opKey: string, now: number): number {
    const windows = this.byTool.get(tool);
    if (windows === undefined) return 0;
    const open = windows.filter((w) => now - w.start < w.requiredMs);
    if (open.length === 0) this.byTool.delete(tool);
    else this.byTool.set(tool, open);
    return open.filter((w) => w.opKey !== opKey).length;
  }
}
