import { describe, expect, it } from 'vitest';
import { classificationWarnings } from '../../../src/domain/judging/classification-warnings.js';
import type { ToolClassification } from '../../../src/domain/judging/classification.js';

const tool = (name: string, cls: ToolClassification['class']): ToolClassification => ({
  name,
  class: cls,
  reason: 'test',
  keyFields: [],
});
const TOOLS = [tool('create_order', 'write'), tool('get_order', 'read'), tool('sync_ledger', 'unclassified')];
const F1 = { mode: 'scenario', id: 'F1' } as const;

describe('classificationWarnings (R-8.4: start-up warnings)', () => {
  it('R-8.4: a configuration that can work gets no warning', () => {
    expect(classificationWarnings({ writeTools: ['create_*'], readTools: ['get_*'] }, F1, TOOLS)).toEqual([]);
    expect(classificationWarnings({}, { mode: 'none' }, [])).toEqual([]);
  });

  it('R-8.4: each --write-tools / --read-tools pattern that matches no listed tool is named (case-sensitive)', () => {
    expect(
      classificationWarnings({ writeTools: ['create_*', 'Create_*'], readTools: ['fetch_*'] }, { mode: 'none' }, TOOLS),
    ).toEqual([
      'WARNING: --write-tools pattern "Create_*" matches none of the upstream\'s 3 tools (patterns are case-sensitive; * is the only wildcard).',
      'WARNING: --read-tools pattern "fetch_*" matches none of the upstream\'s 3 tools (patterns are case-sensitive; * is the only wildcard).',
    ]);
  });

  it('R-8.4: a pattern with control characters is printed escaped', () => {
    expect(classificationWarnings({ readTools: ['a\u001b[2Jb'] }, { mode: 'none' }, TOOLS)[0]).toContain('"a\\u001b[2Jb"');
  });

  it('R-4: a scenario with no write tool can never trigger; every scenario id is named', () => {
    const noWrites = [tool('get_order', 'read'), tool('sync_ledger', 'unclassified')];
    for (const id of ['F1', 'F2', 'F3', 'F4', 'F5'] as const) {
      expect(classificationWarnings({}, { mode: 'scenario', id }, noWrites)).toEqual([
        `WARNING: scenario ${id} can never trigger: no upstream tool is classified as a write, and ${id} acts on writes only. ` +
          'Every run will be NOT_TESTED; use --write-tools to name the write tools.',
      ]);
    }
    expect(classificationWarnings({}, { mode: 'none' }, noWrites)).toEqual([]);
  });

  it('R-4.2: chaos needs a read or a write tool; reads alone are enough', () => {
    expect(classificationWarnings({}, { mode: 'chaos', errorRate: 0.5 }, [tool('get_order', 'read')])).toEqual([]);
    expect(classificationWarnings({}, { mode: 'chaos', errorRate: 0.5 }, [tool('sync_ledger', 'unclassified')])).toEqual([
      'WARNING: chaos mode can never trigger: no upstream tool is classified as a read or a write. Use --write-tools or --read-tools.',
    ]);
  });
});
