/**
 * The headers sent to an HTTP upstream, from `--upstream-header "Name: value"` (repeatable) and
 * `--upstream-header-env Name=ENV_VAR` (the value read from the environment, so secrets stay out of the
 * process list). Errors are one line and never contain a header value.
 */

/** An HTTP field name (RFC 9110 `token`). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Header names the MCP transport or the HTTP client sets itself. */
const MANAGED = new Set([
  'accept',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

/** Reads an environment variable (a `process.env`-like record). */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The headers to send, in the order given. Throws an Error with a one-line reason when a flag is
 * malformed, a name is not an HTTP token, is managed by the transport or is given twice, a value holds
 * a line break or NUL, or an environment variable is unset or empty.
 */
export function parseHeaderFlags(headerFlags: string[], headerEnvFlags: string[], env: Environment): Record<string, string> {
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  const add = (flag: string, name: string, value: string): void => {
    if (seen.has(name.toLowerCase())) throw new Error(`${flag}: header "${name}" is given more than once`);
    seen.add(name.toLowerCase());
    headers[name] = value;
  };
  headerFlags.forEach((text, index) => {
    const flag = `--upstream-header #${index + 1}`;
    const colon = text.indexOf(':');
    if (colon === -1) throw new Error(`${flag} must look like "Name: value" (no colon found)`);
    const name = text.slice(0, colon).trim();
    const value = text.slice(colon + 1).trim();
    // The text before the colon may be a mistyped secret: it is not echoed unless it is a valid name.
    if (!TOKEN.test(name)) throw new Error(`${flag}: the text before the colon is not a valid HTTP header name`);
    checkName(flag, name);
    checkValue(`${flag} (${name})`, value);
    add(flag, name, value);
  });
  headerEnvFlags.forEach((text, index) => {
    const flag = `--upstream-header-env #${index + 1}`;
    const equals = text.indexOf('=');
    const name = equals === -1 ? '' : text.slice(0, equals).trim();
    const variable = equals === -1 ? '' : text.slice(equals + 1).trim();
    if (name === '' || variable === '') throw new Error(`${flag} must look like Name=ENV_VAR, got ${JSON.stringify(text)}`);
    checkName(flag, name);
    const value = env[variable];
    if (value === undefined || value.trim() === '') {
      throw new Error(`${flag}: the environment variable ${variable} (for header "${name}") is not set or empty`);
    }
    checkValue(`${flag}: the environment variable ${variable}`, value.trim());
    add(flag, name, value.trim());
  });
  return headers;
}

function checkName(flag: string, name: string): void {
  if (!TOKEN.test(name)) throw new Error(`${flag}: "${safeName(name)}" is not a valid HTTP header name`);
  if (MANAGED.has(name.toLowerCase())) {
    throw new Error(`${flag}: header "${name}" is set by the MCP transport and cannot be given`);
  }
}

function checkValue(where: string, value: string): void {
  if (/[\r\n\0]/.test(value)) throw new Error(`${where}: header value holds a line break or NUL character`);
}

/** A name fit for an error line: at most 60 characters, control characters replaced. */
function safeName(name: string): string {
  const printable = name.replace(/[\u0000-\u001f\u007f]/g, '?');
  return printable.length > 60 ? `${printable.slice(0, 59)}…` : printable;
}
