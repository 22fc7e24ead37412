/** Types of `fault-id-literals.mjs` for the tests (the check scripts are plain JavaScript). */
export declare function faultIdLiterals(text: string, fileName?: string): Array<{ line: number; text: string }>;
