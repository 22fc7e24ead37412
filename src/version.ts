/** The harness version written into every report (`harnessVersion`); a test keeps it equal to package.json. */
export const HARNESS_VERSION = '0.7.0';
export const PROGRAM_NAME = 'cuonztech-agent-harness';
