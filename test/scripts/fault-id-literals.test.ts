/**
 * The check rule "fault ids are the registry's alone" (scripts/fault-id-literals.mjs, run by `npm run check`
 * over src/ outside src/domain/faults/): which strings it refuses and which it leaves alone.
 */
import { describe, expect, it } from 'vitest';
import { faultIdLiterals } from '../../scripts/fault-id-literals.mjs';

const lines = (text: string) => faultIdLiterals(text).map((found) => found.line);

describe('R-4: npm run check refuses a fault id written as a string outside the fault registry', () => {
  it('R-4: an id as a value, a comparison, a case, a list or a literal type, in any quotes', () => {
    const source = [
      "const id = 'F1';",
      'if (scenario.id === "F2") go();',
      'switch (kind) { case `F3`: break; }',
      "const ids = ['F4', 'F5'];",
      "type ProbeFault = 'F1' | 'F5';",
      "const next = 'F10';",
    ].join('\n');
    expect(lines(source)).toEqual([1, 2, 3, 4, 4, 5, 5, 6]);
    expect(faultIdLiterals("const id = 'F1';")).toEqual([{ line: 1, text: "'F1'" }]);
  });

  it('R-4: an id quoted inside a longer text or a template part (a help or docs text must take it from the registry)', () => {
    expect(lines(`const help = 'start_session {scenario: "F1"}';`)).toEqual([1]);
    expect(lines('const help = `run ${cmd} with "F2" and ${other}`;')).toEqual([1]);
    expect(lines("const help = `${a} then 'F3'`;")).toEqual([1]);
  });

  it('R-4: leaves comments, prose in a text, other F-words and ids taken from the registry alone', () => {
    const source = [
      "// the probe's fault: 'F1'",
      "/** `F1`, or `F1 (arm patched)`; 'F5' is a 500 */",
      "const example = 'harness proxy --scenario F1';",
      "const range = 'Scenarios F1–F5, --runs runs each';",
      "const other = ['F0', 'F', 'FF1', 'f1', 'F1a'];",
      'const id = `${scenarioIds()[0]}`;',
      "const pattern = /'F1'/;",
    ].join('\n');
    expect(faultIdLiterals(source)).toEqual([]);
  });
});
