/**
 * Running the effects view's command (`--effects-command CMD --effects-arg …`, R-15.1): a program that
 * prints the backend's records (a SQL client, `cat ledger.jsonl`). Its standard output, bounded, or why
 * there is none; never a throw.
 */

export interface RecordsCommandSpec {
  command: string;
  args: readonly string[];
  cwd: string;
  timeoutMs: number;
  /** More bytes of standard output than this is no listing (the program is ended). */
  maxBytes: number;
}

export type RecordsCommandOutcome = { ok: true; stdout: string } | { ok: false; reason: string };

export interface RecordsCommand {
  run(spec: RecordsCommandSpec): Promise<RecordsCommandOutcome>;
}
