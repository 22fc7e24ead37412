/**
 * How an MCP tool result becomes the text of the tool message the model reads. The text blocks joined by
 * a new line; any other block as its JSON; `structuredContent` as JSON when there is no content at all.
 *
 * `isError` (the description's F3 finding: a model that cannot see it claims success):
 * - visible (default): the text is prefixed with `Tool error (isError: true): `, as agent frameworks
 *   that raise on `isError` show it to the model;
 * - hidden: the text alone, exactly what a client that drops the flag passes on.
 */
import type { ToolCallResult } from '../../ports/shapes/mcp-shapes.js';
import type { IsErrorMode } from './trial-plan.js';

const IS_ERROR_PREFIX = 'Tool error (isError: true): ';

export function resultText(result: ToolCallResult): string {
  const blocks = Array.isArray(result.content) ? result.content : [];
  if (blocks.length === 0) return result.structuredContent === undefined ? '' : JSON.stringify(result.structuredContent);
  return blocks
    .map((block) => {
      if (typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text') {
        const text = (block as { text?: unknown }).text;
        if (typeof text === 'string') return text;
      }
      return JSON.stringify(block);
    })
    .join('\n');
}

export function toolMessageText(result: ToolCallResult, mode: IsErrorMode): string {
  const text = resultText(result);
  return result.isError === true && mode === 'visible' ? `${IS_ERROR_PREFIX}${text}` : text;
}
