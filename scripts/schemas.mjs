#!/usr/bin/env node
// Writes docs/schemas/*.schema.json from the zod schemas of the files the harness writes
// (src/adapters/schemas/, and the trial config's from src/cli/trial-config-keys.ts, compiled into dist/ by
// `npm run build`). A test fails when the committed files
// differ from a fresh generation (test/adapters/schemas/file-schemas.test.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const { jsonSchemaFiles } = await import(join(root, 'dist/src/adapters/schemas/index.js'));
// The config file's keys are the trial flags' own: its schema comes from the flags' spec (src/cli/).
const { TRIAL_CONFIG_FILE_SCHEMA } = await import(join(root, 'dist/src/cli/trial-config-keys.js'));
const out = join(root, 'docs/schemas');
mkdirSync(out, { recursive: true });
for (const [file, text] of jsonSchemaFiles([TRIAL_CONFIG_FILE_SCHEMA])) {
  writeFileSync(join(out, file), text);
  console.log(`docs/schemas/${file}`);
}
