import type { Logger } from '../../ports/logger.port.js';

const ignore = (): void => undefined;

/** A logger that discards everything: the default when none is given. */
export const silentLogger: Logger = { debug: ignore, info: ignore, warn: ignore, error: ignore };
