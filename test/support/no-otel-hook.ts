/**
 * node flags for a module hook that fails the process if anything resolves an OpenTelemetry
 * package, written into `dir`: a command run with them proves it loads no OpenTelemetry without `--otel`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function noOtelHook(dir: string): string[] {
  const hook = join(dir, 'no-otel.mjs');
  const resolver = `export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@opentelemetry/')) throw new Error('OpenTelemetry resolved: ' + specifier);
  return next(specifier, context);
}`;
  writeFileSync(
    hook,
    `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(resolver)}));\n`,
  );
  return ['--import', hook];
}
