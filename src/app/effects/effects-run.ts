/**
 * The effects of one run (one agent session behind the proxy, R-15.1): the snapshot before its first
 * call, the snapshot after it ended, and the report built from both and the execution facts. A run that
 * overlapped another in time (`--listen`), or whose view was refused at start, is EFFECTS_UNKNOWN with
 * that reason: its diff would mix what several agents did. Never throws; never touches the agent's calls.
 */
import { errorMessage } from '../../domain/error-message.js';
import { escapeTerminalText } from '../../domain/text/terminal-text.js';
import type { ExecutionFacts } from '../../domain/effects/disagreement.js';
import { effectsReport, type EffectsReport } from '../../domain/effects/effects-report.js';
import { viewName, type EffectsViewSettings } from '../../domain/effects/effects-settings.js';
import type { SnapshotResult } from '../../domain/effects/snapshot.js';
import type { JournalEffectsSnapshot } from '../../ports/journal.port.js';
import { snapshotView, type EffectsReaders } from './effects-view.js';

export const OVERLAP_REASON = 'another session ran at the same time: the snapshots hold what both did';

/** Told each snapshot as it is taken (or fails): the journal's `snapshot` lines. */
export type SnapshotObserver = (phase: 'before' | 'after', result: SnapshotResult) => void;

/** What the journal is told of a snapshot: how many records under how many keys, its hash, or why none. */
export function journalSnapshot(
  phase: 'before' | 'after',
  view: EffectsViewSettings,
  result: SnapshotResult,
): JournalEffectsSnapshot {
  const common = { phase, view: viewName(view), keyFields: [...view.keyFields] };
  if (!result.ok) return { ...common, ok: false, reason: result.reason };
  const { snapshot } = result;
  return { ...common, ok: true, records: snapshot.count, keys: new Set(snapshot.ids).size, hash: snapshot.hash };
}

export class EffectsRun {
  private before: SnapshotResult | null = null;
  private overlapReason: string | null = null;
  /** Resolves once the snapshot before the run is taken (or refused); the run's calls wait for it. */
  readonly ready: Promise<void>;
  /** True once `ready` has resolved: calls then go on without waiting. */
  isReady = false;
  private settle!: () => void;
  /** Resolves once the snapshot after the run is taken: the run no longer overlaps runs that open later. */
  readonly done: Promise<void> = new Promise((resolve) => (this.settle = resolve));

  constructor(
    private readonly readers: EffectsReaders,
    private readonly view: EffectsViewSettings,
    /** Why the view cannot be read at all (checked at start); null: read it. */
    private readonly refusal: string | null,
    private readonly timeoutMs: number,
    private readonly observe: SnapshotObserver | null = null,
  ) {
    this.ready = (async () => {
      this.before = await this.snapshot();
      this.observe?.('before', this.before);
      this.isReady = true;
    })();
  }

  /** Another run was open at the same time as this one: its effects cannot be told apart. */
  overlapped(): void {
    this.overlapReason ??= OVERLAP_REASON;
  }

  /** The snapshot after the run and the report, against the execution verdict as it ended. */
  async finish(execution: ExecutionFacts): Promise<EffectsReport> {
    await this.ready;
    const after = await this.snapshot();
    this.observe?.('after', after);
    this.settle();
    const unknown = this.refusal ?? this.overlapReason;
    return effectsReport(this.view, this.before!, after, execution, unknown === null ? null : { reason: unknown });
  }

  private async snapshot(): Promise<SnapshotResult> {
    if (this.refusal !== null) return { ok: false, reason: this.refusal };
    try {
      return await snapshotView(this.readers, this.view, this.timeoutMs);
    } catch (error) {
      return {
        ok: false,
        reason: `${escapeTerminalText(viewName(this.view))} failed: ${escapeTerminalText(errorMessage(error))}`,
      };
    }
  }
}
