/** Types of `flag-tables.mjs` for the tests (the scripts are plain JavaScript). */
export declare function flagBlock(page: string, command: string): string | null;
export declare function renderFlagTable(command: string, help: string): string;
