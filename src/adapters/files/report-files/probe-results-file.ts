/**
 * `proxy --probe-results FILE`: the write tools whose `idempotentHint` a `probe` run found broken (P8
 * `hint_broken`: an identical re-send without a key made a second effect), read from its `--json` file
 * with the file's own schema. Anything wrong with the file is one Error naming the file and the problem.
 */
import { errorMessage } from '../../../domain/error-message.js';
import { parseProbeResultsDocument } from '../../schemas/probe-results.schema.js';
import { jsonSyntaxProblem } from './json-problem.js';
import { readRegularFile } from './regular-file.js';

export async function readBrokenHints(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    throw new Error(`--probe-results ${path}: ${errorMessage(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`--probe-results ${path}: ${jsonSyntaxProblem(error, text)}`);
  }
  try {
    const document = parseProbeResultsDocument(value);
    return document.tools.filter((t) => t.probes.some((p) => p.probe === 'P8' && p.label === 'hint_broken')).map((t) => t.tool);
  } catch (error) {
    throw new Error(`--probe-results ${path}: not a probe --json file: ${errorMessage(error)}`);
  }
}
