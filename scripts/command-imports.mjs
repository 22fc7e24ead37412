// The check rule "no command's wiring imports another command's" (run by `npm run check` over src/cli/):
// a command `X` is named by its definition `X-command.ts`; its wiring `X-run.ts` may import no `Y-run.ts`
// of another command `Y` (static, type-only or dynamic). What two commands share is a module of its own
// that says what it is (`upstream-wiring.ts`, `html-report.ts`, the `--otel` wiring `otel-run.ts`, which is
// no command's), so a change to one command's wiring never reaches another command.

const IMPORTS = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/**
 * The imports of `text` (the file `fileName` of src/cli/) that reach another command's wiring, given the
 * names of src/cli/'s files; [] when the file is not a command's wiring.
 */
export function crossCommandImports(fileName, text, cliFiles) {
  const commands = new Set(
    cliFiles.filter((name) => name.endsWith('-command.ts')).map((name) => name.slice(0, -'-command.ts'.length)),
  );
  const own = /^(.+)-run\.ts$/.exec(fileName)?.[1];
  if (own === undefined || !commands.has(own)) return [];
  const found = [];
  for (const match of text.matchAll(IMPORTS)) {
    const spec = match[1] ?? match[2];
    const other = /^\.\/(.+)-run(?:\.js|\.ts)?$/.exec(spec)?.[1];
    if (other !== undefined && other !== own && commands.has(other)) found.push({ spec, command: other });
  }
  return found;
}
