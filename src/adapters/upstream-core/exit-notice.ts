/** The upstream going away, told once to every listener (both upstream transports). */
import { errorMessage } from '../../domain/error-message.js';
import type { Logger } from '../../ports/logger.port.js';
import type { UpstreamExit } from '../../ports/upstream-side.port.js';

/**
 * "The upstream went away", reported once: listeners added later hear it at once (asynchronously), and a
 * failing listener is logged, never thrown into the adapter.
 */
export class ExitNotice {
  private exit: UpstreamExit | undefined;
  private readonly listeners: Array<(exit: UpstreamExit) => void> = [];

  constructor(private readonly logger: Logger | undefined) {}

  /** The exit, once it happened. */
  get report(): UpstreamExit | undefined {
    return this.exit;
  }

  listen(listener: (exit: UpstreamExit) => void): void {
    this.listeners.push(listener);
    const exit = this.exit;
    if (exit !== undefined) queueMicrotask(() => this.notify(listener, exit));
  }

  /** Records the exit and tells every listener; later calls are ignored. */
  fire(exit: UpstreamExit): void {
    if (this.exit !== undefined) return;
    this.exit = exit;
    for (const listener of this.listeners) this.notify(listener, exit);
  }

  private notify(listener: (exit: UpstreamExit) => void, exit: UpstreamExit): void {
    try {
      listener(exit);
    } catch (error) {
      this.logger?.error({ err: errorMessage(error) }, 'upstream exit listener failed');
    }
  }
}
