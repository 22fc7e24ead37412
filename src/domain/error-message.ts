/**
 * The text of a thrown value, the one way the harness reads it: an `Error`'s `message`, anything else
 * (a string, a number, an object someone threw) as `String(value)`. `npm run check` refuses the
 * hand-written `error instanceof Error ? … : String(error)` anywhere else.
 */

/** The message of any thrown value. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The first line of its message: a problem named in one line (a file that cannot be read). */
export function errorFirstLine(error: unknown): string {
  return errorMessage(error).split('\n')[0] ?? '';
}

/** The thrown value as an `Error`, for an API that takes one: an `Error` itself, anything else wrapped. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** A Node.js system error's code (`ENOENT`, `ENOSPC`, …), read without trusting the error's prototype. */
export function errorCode(error: unknown): string | undefined {
  const code: unknown = error instanceof Error ? Object.getOwnPropertyDescriptor(error, 'code')?.value : undefined;
  return typeof code === 'string' ? code : undefined;
}
