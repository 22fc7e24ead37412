/**
 * The text of a thrown value, the one way the harness reads it: an `Error`'s `message`, anything else
 * (a string, a number, an object someone threw) as `String(value)`.
 */

/** The message of any thrown value. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The first line of its message: a problem named in one line (a file that cannot be read). */
export function errorFirstLine(error: unknown): string {
  return errorMessage(error).split('\n')[0] ?? '';
}
