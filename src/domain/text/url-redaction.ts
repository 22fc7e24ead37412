/**
 * A URL as it may be written to a file or printed: an endpoint's URL may carry a secret (a key in the
 * query, `?key=…` as some gateways take it; a user and password before the host). The rule:
 * - user and password become `***` (the flags refuse them; this is the second line);
 * - every query parameter keeps its name, and its value is replaced by `***`, except the parameters of
 *   {@link KEPT_PARAMETERS} (Azure's `api-version`), whose values name a protocol, not a person;
 * - the fragment is dropped (it is never sent).
 * Only what is written or printed is redacted: the request itself goes to the URL as given. Pure.
 */

/** Query parameters whose values are kept: they select an API version, never an identity. */
export const KEPT_PARAMETERS: ReadonlySet<string> = new Set(['api-version']);

const HIDDEN = '***';

/** The URL with its secrets replaced (see the module's rule); text that is not a URL is not quoted at all. */
export function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return '(not a URL)';
  }
  if (url.username !== '') url.username = HIDDEN;
  if (url.password !== '') url.password = HIDDEN;
  url.hash = '';
  if (url.search !== '') {
    const kept = [...url.searchParams].map(
      ([name, value]) =>
        `${encodeURIComponent(name)}=${KEPT_PARAMETERS.has(name.toLowerCase()) ? encodeURIComponent(value) : HIDDEN}`,
    );
    url.search = kept.join('&');
  }
  return url.href;
}
