/**
 * An HTML page as parse5 (a real HTML parser, the one jsdom uses) reads it, for tests that ask what a
 * page shows rather than match its markup: every element, an element's text, its attributes and classes.
 */
import { parse, type DefaultTreeAdapterMap } from 'parse5';

export type HtmlNode = DefaultTreeAdapterMap['node'];
export type HtmlElement = DefaultTreeAdapterMap['element'];

/** Every node under `node`, itself first, in document order (template contents included). */
export function* walk(node: HtmlNode): Generator<HtmlNode> {
  yield node;
  for (const child of (node as { childNodes?: HtmlNode[] }).childNodes ?? []) yield* walk(child);
  const content = (node as { content?: HtmlNode }).content;
  if (content !== undefined) yield* walk(content);
}

/** Every element of a page (a string, parsed) or under a node, in document order. */
export const elementsOf = (root: string | HtmlNode): HtmlElement[] =>
  [...walk(typeof root === 'string' ? (parse(root) as unknown as HtmlNode) : root)].filter(
    (n): n is HtmlElement => 'tagName' in n,
  );

/** The text of a node and everything under it. */
export const textOf = (node: HtmlNode): string =>
  [...walk(node)].map((n) => ('value' in n && n.nodeName === '#text' ? n.value : '')).join('');

export const attrOf = (el: HtmlElement, name: string): string | undefined => el.attrs.find((a) => a.name === name)?.value;

export const classesOf = (el: HtmlElement): string[] => (attrOf(el, 'class') ?? '').split(/\s+/).filter((c) => c !== '');

export const hasClass = (el: HtmlElement, cls: string): boolean => classesOf(el).includes(cls);
