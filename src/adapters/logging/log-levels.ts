/** The log levels `--log-level` accepts (proxy flag and trial config key alike); `silent` writes nothing. */
export const LOG_LEVELS = ['silent', 'error', 'warn', 'info', 'debug'] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];
