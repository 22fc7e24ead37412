/**
 * The CLI in-process for the trial/stats/check tests: `main(argv, io)` with captured stdout and stderr,
 * the given environment and no signals. Returns the exit code and both texts.
 */
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<CliResult> {
  const capture = () => {
    const stream = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
  };
  const stdout = capture();
  const stderr = capture();
  const code = await main(argv, {
    stdin: new PassThrough(),
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    onSignal: () => () => undefined,
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
