/** Types of `flag-tables.mjs` for the tests (the scripts are plain JavaScript). */
export declare function flagBlock(page: string, command: string): string | null;
export declare function renderFlagTable(command: string, help: string): string;
export declare function renderConfigTable(
  keys: ReadonlyArray<{ key: string; flag: string; codec: { says: string } }>,
  spellings: ReadonlyMap<string, string>,
): string;
export declare function configBlock(page: string): string | null;
