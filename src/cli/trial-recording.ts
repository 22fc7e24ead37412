/**
 * `trial`: each run's recording, `runs/<run>/cassette.jsonl` (docs/replay.md), written by the recording
 * tap in front of the run's upstream. Wiring only.
 */
import { join } from 'node:path';
import { CassetteFile } from '../adapters/cassette/cassette-file.js';
import { RecordingUpstreamSide } from '../adapters/cassette/recording-upstream-side.js';
import type { ModelRecorder, RecordedModelFault } from '../ports/cassette.port.js';
import type { UpstreamSide } from '../ports/upstream-side.port.js';
import { HARNESS_VERSION } from '../version.js';

export async function recordRun(
  upstream: UpstreamSide,
  runDir: string,
  runId: string,
  redact: readonly string[],
  notice: (line: string) => void,
  modelFault?: RecordedModelFault,
): Promise<{ upstream: UpstreamSide; model: ModelRecorder }> {
  const file = await CassetteFile.open(join(runDir, 'cassette.jsonl'), notice);
  const tap = new RecordingUpstreamSide(upstream, file, {
    recorded: `trial run ${runId}`,
    harnessVersion: HARNESS_VERSION,
    redact: [...new Set(redact)],
    ...(modelFault !== undefined ? { modelFault } : {}),
  });
  return { upstream: tap, model: tap.model };
}
