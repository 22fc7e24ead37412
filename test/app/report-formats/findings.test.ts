/**
 * R-14.4 in `check`'s outputs: a runtime duplicate's finding (what the runtime did, and that a prompt
 * change will not fix it) is shown beside the prompt patches in the HTML page, the Markdown summary and
 * the JUnit failure text. The run file is a real one `trial` wrote (the careful stub script and a program
 * that carries out each tool call twice); its report gets the findings and patches the harness writes now.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { deriveFindings } from '../../../src/domain/report/findings.js';
import { buildHtml } from '../../../src/app/report-formats/html.js';
import { buildJunit } from '../../../src/app/report-formats/junit.js';
import { buildMarkdown } from '../../../src/app/report-formats/markdown.js';
import { checkRunFiles, runFile } from '../../support/trial-run-fixtures.js';

/** The runtime-duplicate run with its report as today's harness writes it: a finding, no patch. */
function runtimeRun(): Record<string, unknown> {
  const file = runFile('runtime-duplicate');
  const document = file['report'] as Record<string, unknown>;
  document['patches'] = [];
  document['findings'] = deriveFindings({
    'same-tool-call-twice': 1,
    'unrequested-call': 0,
    'same-request-id': 0,
    'other-session-unanswered': 0,
  });
  return file;
}

describe('R-14.4 the runtime finding in check outputs', () => {
  it('R-14.4 HTML: a findings section naming the behaviour, saying a prompt change will not fix it', () => {
    const html = buildHtml(checkRunFiles([runtimeRun()]));
    expect(html).toContain('<h3>Findings: the runtime sent a write again</h3>');
    expect(html).toContain('[HIGH] RUNTIME_RESEND (same-tool-call-twice)');
    expect(html).toContain('carried out the same tool call of the model twice: 1 extra execution(s).');
    expect(html).toContain('A prompt change will not fix this');
    expect(html).not.toContain('<h3>Prompt patches</h3>');
  });

  it('R-14.4 Markdown: the finding in the case details', () => {
    const md = buildMarkdown(checkRunFiles([runtimeRun()]));
    // Markdown-escaped: RUNTIME\_RESEND.
    expect(md).toContain(
      "**Finding RUNTIME\\_RESEND (same-tool-call-twice):** The agent's runtime carried out the same tool call",
    );
    expect(md).not.toContain('## Prompt patches to copy');
  });

  it('R-14.4 JUnit: the finding in the failure text, the XML valid', () => {
    const junit = buildJunit(checkRunFiles([runtimeRun()]).suites);
    expect(XMLValidator.validate(junit)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false }).parse(junit) as {
      testsuites: { testsuite: { testcase: { failure: { '#text': string } } } };
    };
    expect(doc.testsuites.testsuite.testcase.failure['#text']).toContain(
      "Finding RUNTIME_RESEND (same-tool-call-twice): The agent's runtime carried out the same tool call of the model twice: 1 extra execution(s). A prompt change will not fix it.",
    );
  });
});
