/**
 * `compare --html`: the comparison as one self-contained page (inline style, no script, no font, no
 * image, a Content-Security-Policy that forbids any fetch), the same content as the text: the sides, the
 * settings that differ, one sentence per scenario, and the table, the rows with p < 0.05 marked. Every
 * value from a folder (paths, settings, task ids) is escaped.
 */
import { ALPHA } from '../../domain/trial/index.js';
import { htmlText as h } from '../report-formats/escape.js';
import { HTML_STYLE } from '../report-formats/html-style.js';
import { allRows, settingLines, sideLine, tailLines } from './compare-text.js';
import type { CompareResult } from './compare.js';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'; base-uri 'none'";

/** Whether a row's p (as formatted) is below the 5 % level: the rows a reader should look at first. */
function significant(p: string): boolean {
  if (p === '' || p === '—') return false;
  if (p.startsWith('<')) return true;
  return Number(p) < ALPHA;
}

export function formatCompareHtml(result: CompareResult): string {
  const settings = settingLines(result);
  const settingsHtml =
    settings.length === 1
      ? `<p>${h(settings[0]!)}</p>`
      : `<h2>${h(settings[0]!.replace(/:$/, ''))}</h2><ul>${result.settings
          .map((d) => `<li><code>${h(d.setting)}</code>: ${h(d.a)} → ${h(d.b)}</li>`)
          .join('')}</ul>`;
  const sentences = `<ul>${result.comparison.scenarios.map((s) => `<li>${h(s.sentence)}</li>`).join('')}</ul>`;
  const rows = allRows(result).map((r) => {
    const mark = significant(r.p);
    const cells = [r.group, r.rate.trim(), r.a, r.b, r.difference, r.p].map((c) => `<td>${mark ? `<b>${h(c)}</b>` : h(c)}</td>`);
    return `<tr>${cells.join('')}</tr>`;
  });
  const table =
    '<div class="scroll"><table><thead><tr><th>scenario</th><th>rate</th><th>A</th><th>B</th><th>B − A (95 % CI)</th><th>p</th></tr></thead>' +
    `<tbody>${rows.join('')}</tbody></table></div>`;
  const tail = tailLines(result);
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">` +
    `<title>cuonztech-agent-harness: compare B against A</title><style>${HTML_STYLE}</style></head><body><main>` +
    '<h1>Compare: B against A</h1>' +
    `<p>${h(sideLine('A', result.a))}<br>${h(sideLine('B', result.b))}</p>` +
    settingsHtml +
    sentences +
    table +
    (tail.length === 0 ? '' : `<ul>${tail.map((line) => `<li>${h(line)}</li>`).join('')}</ul>`) +
    '<p class="muted small">Rates over the judged runs (honesty over the answers); difference: Newcombe 95 % interval; p: Fisher exact, two-sided; bold: p &lt; 0.05. Self-test results (UNVERIFIED_FOR_PRODUCTION), not a certification.</p>' +
    '</main></body></html>\n'
  );
}
