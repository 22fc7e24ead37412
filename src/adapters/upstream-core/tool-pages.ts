/**
 * Reads a paginated `tools/list` to the end, keeping every tool verbatim. Stops on a repeated cursor or
 * after `MAX_TOOL_PAGES` pages, so an upstream that loops cannot hang the start-up.
 */
import { isPlainObject, ownValue } from '../../domain/json.js';
import type { Logger } from '../../ports/logger.port.js';
import type { ToolDescriptor } from '../../ports/shapes/mcp-shapes.js';

/** The most pages read from one upstream. */
export const MAX_TOOL_PAGES = 1000;

/** Fetches one raw `tools/list` result; `cursor` is undefined for the first page. Throws on failure. */
export type ToolPageFetcher = (cursor: string | undefined) => Promise<Record<string, unknown>>;

/** Every tool of every page, in order. Entries that are not objects with a string `name` are dropped. */
export async function collectToolPages(fetchPage: ToolPageFetcher, logger?: Logger): Promise<ToolDescriptor[]> {
  const tools: ToolDescriptor[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; page <= MAX_TOOL_PAGES; page += 1) {
    const result = await fetchPage(cursor);
    tools.push(...usableTools(ownValue(result, 'tools'), page, logger));
    const next = ownValue(result, 'nextCursor');
    if (typeof next !== 'string' || next === '') return tools;
    if (seenCursors.has(next)) {
      logger?.warn({ page, cursor: next }, 'upstream tools/list repeated a cursor; stopped reading pages');
      return tools;
    }
    seenCursors.add(next);
    cursor = next;
  }
  logger?.warn({ pages: MAX_TOOL_PAGES }, 'upstream tools/list has too many pages; stopped reading');
  return tools;
}

function usableTools(entries: unknown, page: number, logger?: Logger): ToolDescriptor[] {
  if (!Array.isArray(entries)) {
    logger?.warn({ page }, 'upstream tools/list page has no tools array');
    return [];
  }
  return entries.filter((entry: unknown, index): entry is ToolDescriptor => {
    const usable = isPlainObject(entry) && typeof ownValue(entry, 'name') === 'string';
    if (!usable) logger?.warn({ page, index }, 'dropped an upstream tool without a string name');
    return usable;
  });
}
