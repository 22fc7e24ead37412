/**
 * A server's answer text made short for one line of `probe` without losing what it says: the MCP SDK's
 * argument validation error (`Invalid arguments for tool T: [ {"path": ["guest"], "message": …}, … ]`) is
 * told as `guest: <message>` per issue, and a long text is cut between words, never mid-word (issue 42:
 * the line was cut before the part that said which argument).
 */
import { isPlainObject, ownValue } from '../json.js';

/** `path: message` for each issue of a JSON array of validation issues, or null when the text holds none. */
function issuesOf(text: string): string | null {
  const start = text.indexOf('[');
  const end = text.lastIndexOf(']');
  if (start < 0 || end <= start) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(start, end + 1));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return null;
  const parts: string[] = [];
  for (const issue of parsed) {
    if (!isPlainObject(issue)) return null;
    const message = ownValue(issue, 'message');
    const path = ownValue(issue, 'path');
    if (typeof message !== 'string') return null;
    const where = Array.isArray(path) && path.length > 0 ? path.map(String).join('.') : '(arguments)';
    parts.push(`${where}: ${message}`);
  }
  return `${text.slice(0, start).trimEnd().replace(/:$/, '')}: ${parts.join('; ')}`;
}

/** At most `max` characters (plus `…`), cut at the last space before the limit; validation issues first named. */
export function errorGist(text: string, max: number): string {
  const flat = (issuesOf(text) ?? text).replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const space = flat.lastIndexOf(' ', max);
  return `${flat.slice(0, space > max / 2 ? space : max)}…`;
}
