/**
 * The operations changed since a reader last looked. A session hands one to each reader that asks
 * (`EvaluationSession.recordChanges`), so two readers never take each other's changes: the incremental
 * report writer refreshes exactly the operations in its own set.
 */
import type { OperationView } from '../judging/operation-state.js';

export class ChangeSet {
  private changed = new Set<OperationView>();

  /** @param catchUp brings the session's state up to date before the changes are taken. */
  constructor(private readonly catchUp: () => void) {}

  /** Records a changed operation (called by the session). */
  add(op: OperationView): void {
    this.changed.add(op);
  }

  /** The operations changed since the last `take`; starts a new record. */
  take(): ReadonlySet<OperationView> {
    this.catchUp();
    const changed = this.changed;
    this.changed = new Set();
    return changed;
  }
}
