/** Types of `command-imports.mjs` for the tests (the check scripts are plain JavaScript). */
export declare function crossCommandImports(
  fileName: string,
  text: string,
  cliFiles: readonly string[],
): Array<{ spec: string; command: string }>;
