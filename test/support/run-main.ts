/** Runs the CLI in-process (no real stdin/stdout, no signals) and returns its exit code and stderr. */
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main.js';

export async function runMain(argv: string[]): Promise<{ code: number; stderr: string }> {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (c: Buffer) => (text += c.toString()));
  const code = await main(argv, {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr,
    env: {},
    cwd: process.cwd(),
    onSignal: () => () => undefined,
  });
  return { code, stderr: text };
}
