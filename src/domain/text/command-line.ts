/**
 * A command line as a person would type it in a POSIX shell, for lines that say what the harness is about
 * to start (`replay` prints each recorded command before it runs it: a recording is code). A word of
 * letters, digits and `@%+=:,./_-` is shown bare; any other word (spaces, quotes, `$`, `;`, an empty
 * word) in single quotes, a `'` inside as `'\''`, so the line means exactly the words that will be run.
 * Pure: the caller escapes it for the terminal.
 */

const BARE = /^[\w@%+=:,./-]+$/;

/** One word, quoted when a shell would read it otherwise. */
export function shellWord(word: string): string {
  return BARE.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `command` and its arguments as one line. */
export function commandLineText(command: string, args: readonly string[]): string {
  return [command, ...args].map(shellWord).join(' ');
}
