// A rule of `npm run check` (scripts/check-layers.mjs): fault ids are the registry's alone. Outside
// src/domain/faults/ no string in the code is a fault id (`'F1'`, `"F5"`, `` `F2` ``, a type `'F1' | 'F5'`)
// or quotes one inside a longer text (`{scenario: "F1"}`): code that needs a fault asks the registry by what
// the fault declares (`faultServing`, `scenarioIds`, `faultOf`), and help or docs texts that show an id take
// it from there. Comments are not code: an id in prose there is fine, as it is in the words of a help text
// (`--scenario F1` in an example).
// The strings are read with TypeScript's own parser, so comments, regular expressions and template parts
// are told apart exactly.
import ts from 'typescript';

const ID = /^F[1-9]\d*$/;
const QUOTED_ID = /(["'`])F[1-9]\d*\1/;

/**
 * The fault-id literals of one source text: `{ line, text }` for each string that is an id or quotes one
 * (line numbers from 1).
 */
export function faultIdLiterals(text, fileName = 'file.ts') {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found = [];
  const visit = (node) => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      if (ID.test(node.text) || QUOTED_ID.test(node.text)) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push({ line: line + 1, text: node.getText(source) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
