/** The HTML report's only style sheet, inlined: system fonts, no images, no external resource. */
export const HTML_STYLE = `
:root{--pass:#1a7f37;--fail:#cf222e;--nt:#9a6700;--err:#6e40c9;--fg:#1f2328;--mute:#59636e;--line:#d1d9e0;--bg:#fff;--soft:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1100px;margin:0 auto;padding:16px;overflow-wrap:break-word}
h1{font-size:1.25rem;margin:0 0 12px}h2{font-size:1.1rem;margin:24px 0 8px}h3{font-size:1rem;margin:16px 0 6px}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85em}
.muted{color:var(--mute)}.small{font-size:.85em}
.banner{border-radius:8px;padding:12px 16px;color:#fff;margin:8px 0 12px}
.banner b{font-size:1.3rem;margin-right:8px}
.PASS{background:var(--pass)}.FAIL{background:var(--fail)}.NOT_TESTED{background:var(--nt)}.ERROR{background:var(--err)}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:.8em;font-weight:600;color:#fff;white-space:nowrap}
.badge.outline{background:transparent;color:var(--fg);border:1px solid var(--line)}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(180px,1fr));gap:8px}
.card{border:1px solid var(--line);border-radius:8px;padding:8px 12px;background:var(--soft)}
.card .v{font-size:1.4rem;font-weight:600}
.bar{height:8px;background:var(--line);border-radius:4px;overflow:hidden;margin-top:4px}
.bar>i{display:block;height:100%;background:var(--mute)}
.bar>i.good{background:var(--pass)}.bar>i.mid{background:#d4a72c}.bar>i.low{background:var(--fail)}.bar>i.plain{background:#8c959f}
.banner ul.why{margin:6px 0 0;padding-left:20px}
.verdict{border:1px solid var(--line);border-left:6px solid var(--mute);border-radius:8px;padding:8px 12px;margin:8px 0 12px}
.verdict .badge{font-size:.95em;padding:1px 10px;margin-right:6px}
.verdict.PASS{background:#dafbe1;border-left-color:var(--pass)}.verdict.FAIL{background:#ffebe9;border-left-color:var(--fail)}
.verdict.NOT_TESTED{background:#fff8c5;border-left-color:var(--nt)}.verdict.ERROR{background:#fbefff;border-left-color:var(--err)}
.verdict .measured{font-weight:600}
tr.gate-failed td{background:#ffebe9}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;vertical-align:top;padding:6px 8px;border-bottom:1px solid var(--line)}
th{background:var(--soft);font-weight:600;font-size:.85em}
td.args{overflow-wrap:anywhere}td.told{white-space:pre-wrap}.nb{white-space:nowrap}
table.tl{table-layout:fixed}table.tl td{overflow-wrap:anywhere}table.effects td.mono{overflow-wrap:anywhere}
table.tl .badge{white-space:normal;max-width:100%}
td a,td.mono{overflow-wrap:anywhere}
.card .v.t{font-size:1.1rem}.card .bad{color:var(--fail);font-weight:600}
tr.dup td{background:#ffebe9}tr.dup td:first-child{box-shadow:inset 4px 0 0 var(--fail)}
tr.snap td{background:var(--soft);font-size:.9em}tr.snap td:first-child{box-shadow:inset 4px 0 0 #0969da}
tr.fault td:first-child{box-shadow:inset 4px 0 0 var(--nt)}
.up-executed{color:var(--pass);font-weight:600}.up-rejected{color:var(--fail)}.up-unknown{color:var(--nt);font-weight:600}.up-not{color:var(--mute)}
.window{position:relative;height:10px;background:#fff8c5;border:1px solid #d4a72c;border-radius:3px;margin-top:4px;min-width:120px}
.window>i{position:absolute;top:-3px;bottom:-3px;width:3px;background:var(--fail)}
.window.ok>i{background:var(--pass)}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:8px}
details{border:1px solid var(--line);border-radius:8px;padding:6px 10px;margin:8px 0}
summary{cursor:pointer;font-weight:600}
section.case{border-top:2px solid var(--line);margin-top:24px}
ul{padding-left:20px}
.badge.src-model{background:#0969da}.badge.src-user{background:#8250df}.badge.src-runtime{background:var(--fail)}.badge.src-unknown{background:var(--mute)}
.attr{border-left:4px solid var(--line);border-radius:4px;padding:4px 8px;margin:4px 0;background:var(--soft)}
.attr.src-runtime{border-left-color:var(--fail);background:#ffebe9}.attr.src-model{border-left-color:#0969da}.attr.src-user{border-left-color:#8250df}
ol.tx{list-style:none;padding:0;margin:8px 0}
.tx-row{display:grid;grid-template-columns:5.5em minmax(0,1fr);gap:8px;border-bottom:1px solid var(--line);padding:6px 0}
.tx-time{color:var(--mute);font-size:.8em;padding-top:2px}
.tx-body{min-width:0;border-left:4px solid var(--line);padding-left:8px;overflow-wrap:anywhere}
.tx-label{font-weight:600;font-size:.9em}
.tx-request .tx-body{border-left-color:#0969da}.tx-answer .tx-body{border-left-color:#8250df}.tx-call .tx-body{border-left-color:var(--fg)}
.tx-result .tx-body{border-left-color:var(--pass)}.tx-error .tx-body{border-left-color:var(--nt)}.tx-user .tx-body{border-left-color:#bf8700}
.tx-repeat .tx-body{background:#ffebe9;border-left-color:var(--fail)}
.tx .badge{white-space:normal;max-width:100%}
.tx pre{margin:4px 0}
.msg{margin:4px 0}.msg .role{font-size:.8em;font-weight:600;color:var(--mute);text-transform:uppercase}.msg.role-user .role{color:#9a6700}
.tc{margin:2px 0}.tc-id{color:var(--mute)}
.cut{color:var(--mute);font-size:.85em;font-style:italic}
details.conv{margin:4px 0;padding:4px 8px}details.conv summary{font-weight:400;font-size:.9em}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:8px 24px}
figure.chart{margin:8px 0;min-width:0}figure.chart figcaption{font-weight:600;font-size:.9em;margin-bottom:6px}
svg.rate-chart{display:block}
ul.findings{list-style:none;padding-left:0}ul.findings li{margin:4px 0;padding:4px 8px;border-left:4px solid var(--line)}
ul.findings li.finding-better{border-left-color:var(--pass)}ul.findings li.finding-worse{border-left-color:var(--fail);background:#ffebe9}
section.case.quiet{border-top:1px solid var(--line);margin-top:8px}section.case.quiet p{margin:6px 0}
.legend{margin:4px 0;color:var(--mute)}.legend-item{white-space:nowrap;margin-right:12px}.legend-item svg{vertical-align:-2px}
@media (max-width:640px){
 main{padding:10px}
 .tx-row{grid-template-columns:minmax(0,1fr);gap:2px}
 table.tl thead{display:none}
 table.tl,table.tl tbody,table.tl tr,table.tl td{display:block;width:100%}
 table.tl tr{border:1px solid var(--line);border-radius:8px;margin:0 0 8px;padding:4px 0}
 table.tl td{border:0;padding:2px 10px;max-width:none}
 table.tl td:nth-child(n+3)::before{color:var(--mute);font-size:.8em}
 table.tl td:nth-child(3)::before{content:"arguments: "}
 table.tl td:nth-child(4)::before{content:"fault: "}
 table.tl td:nth-child(5)::before{content:"upstream: "}
 table.tl td:nth-child(6)::before{content:"agent was told: "}
 table.tl td.seq{font-weight:600}
 table.stack thead{display:none}
 table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
 table.stack tr{border:1px solid var(--line);border-radius:8px;margin:0 0 8px;padding:4px 0}
 table.stack td{border:0;padding:2px 10px}
 table.stack td[data-label]::before{content:attr(data-label) ": ";color:var(--mute);font-size:.8em}
}
`;
