/**
 * `init`, run: the starter config (`app/init/starter-config.ts`) with the paths of this install's booking
 * server, example agent and JSON Schema, written without following a link (`adapters/files/user-named-file.ts`).
 */
import { errorMessage } from '../domain/error-message.js';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeNewFile } from '../adapters/files/user-named-file.js';
import { starterConfig } from '../app/init/starter-config.js';
import { PROGRAM_NAME } from '../version.js';
import { onOff, single, type FlagValues } from './argv.js';
import { FatalError, UsageError } from './errors.js';
import { writeNotice, type CliIo } from './io.js';

export async function runInit(file: string | undefined, values: FlagValues, io: CliIo): Promise<number> {
  for (const flag of Object.keys(values))
    if (flag !== 'force') throw new UsageError(`flag --${flag} is not an init flag; see init --help`);
  const force = onOff(single(values, 'force'), 'force', false);
  const name = file ?? 'harness.yaml';
  if (!/\.ya?ml$/i.test(name))
    throw new UsageError(`init writes YAML: name the file .yaml or .yml (trial reads a .json name as JSON), got "${name}"`);
  const path = resolve(io.cwd, name);
  const root = packageRoot();
  const folder = dirname(path);
  // As the file should name them: relative to the file's folder when below it, else absolute.
  const near = (target: string) => {
    const rel = relative(folder, target);
    return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? target : rel;
  };
  const schema = join(root, 'docs/schemas/trial-config.schema.json');
  const text = starterConfig(
    {
      schema: existsSync(schema) ? near(schema) : null,
      bookingServer: near(join(root, 'dist/examples/booking-server/server.js')),
      exampleAgent: near(join(root, 'examples/agents/sdk-agent.mjs')),
    },
    PROGRAM_NAME,
  );
  let done: 'created' | 'replaced';
  try {
    done = await writeNewFile('config file', path, text, force);
  } catch (error) {
    throw new FatalError(errorMessage(error));
  }
  writeNotice(
    io.stderr,
    `${done === 'created' ? 'wrote' : 'replaced'} ${name}; run it with: ${PROGRAM_NAME} trial --config ${name}`,
  );
  return 0;
}

/** The installed package's folder: the nearest folder above this module with a package.json. */
function packageRoot(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(folder, 'package.json'))) {
    const up = dirname(folder);
    if (up === folder) throw new FatalError('the harness install has no package.json above its code');
    folder = up;
  }
  return folder;
}
