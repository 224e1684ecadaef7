"""The report's JSON as one static HTML page: inline CSS and SVG, no script, no URL outside the page.

Every compile is a section (``id`` = its ``anchor``), every shape-guard line a table row
(``{anchor}-{id}``), so an ``implied_by`` is a plain link to the rows that imply it and the
browser's ``:target`` highlights the one followed. The chart draws each compile's lines before
and after as two bars, each bar a link to its section.
"""

from __future__ import annotations

from html import escape
from typing import Any

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:1em 2em;color:#222}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:2px 6px;vertical-align:top}
th{background:#f4f4f4;text-align:left}code,.code{font:12px/1.35 ui-monospace,monospace;word-break:break-all}
.guards td.code{max-width:640px}.guards tr.dropped{color:#777;background:#fafafa}
tr:target{outline:3px solid #e8a400;background:#fff6d6!important}
.v{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;white-space:nowrap}
.v-required{background:#d8ecff}.v-redundant,.v-always_true{background:#e3f5e1}.v-unknown,.v-unread,
.v-unsupported,.v-not_asked{background:#fde9d9}.v-always_false{background:#f8d0d0}
.origin{color:#666;font-size:12px}.num{text-align:right}.note{color:#555;font-size:13px}
nav a{margin-right:.8em}details{margin:.4em 0}
"""


def _e(x: Any) -> str:
    return escape(str(x), quote=True)


def render(report: dict[str, Any]) -> str:
    """The whole page."""
    entries: list[dict[str, Any]] = report["compiles"]
    t = report["totals"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>symguard trace: {_e(report['trace_dir'])}</title><style>{CSS}</style></head><body>",
        f"<h1>Shape guards of <code>{_e(report['trace_dir'])}</code></h1>",
        (f'<p class="note">{_e(report["generator"])}: {t["compiles"]} compiles ({t["recompiles"]} recompiles) '
        f"in {len(report['files'])} log file(s). Each compile's shape guards are the lines Dynamo checks on every "
        "call; symguard's <code>redundancy</code> says which of them the others imply.</p>"),
        _summary(t),
        _chart(entries),
    ]
    if report.get("warnings"):
        parts.append("<h2>Warnings</h2><ul>" + "".join(f"<li>{_e(w)}</li>" for w in report["warnings"]) + "</ul>")
    parts.append("<nav>" + "".join(f'<a href="#{_e(e["anchor"])}">{_e(_label(e))}</a>' for e in entries) + "</nav>")
    parts.extend(_section(e, len(report["files"]) > 1) for e in entries)
    parts.append(f'<h2>How this is measured</h2><p class="note">{_e(report["cost_model"])}</p>')
    parts.append("</body></html>")
    return "\n".join(parts)


def _ident(e: dict[str, Any]) -> str:
    """``0/1``; with several log files (one per process, where ids repeat) ``#2 0/1``."""
    file = f"#{e['file_index']} " if e.get("file_index") is not None else ""
    return f"{file}{e['compile_id']}"


def _label(e: dict[str, Any]) -> str:
    return f"{_ident(e)} {e.get('co_name') or ''}".strip()


def _cost_row(name: str, c: dict[str, int]) -> str:
    return f"<tr><th>{name}</th>" + "".join(f'<td class="num">{c[k]:,}</td>' for k in ("lines", "chars", "ops", "divs")) + "</tr>"


def _summary(t: dict[str, Any]) -> str:
    share = t["kept_share"]
    kept = "".join(f'<td class="num">{"—" if share[k] is None else f"{100 * share[k]:.1f}%"}</td>'
                   for k in ("lines", "chars", "ops", "divs"))
    return ('<table class="summary"><tr><th>all compiles</th><th>lines</th><th>characters</th><th>operations</th>'
            "<th>divisions</th></tr>" + _cost_row("before (Dynamo)", t["before"])
            + _cost_row("after (kept)", t["after"]) + f"<tr><th>kept share</th>{kept}</tr></table>")


def _chart(entries: list[dict[str, Any]]) -> str:
    """Horizontal bars, two per compile: all lines (grey) and the kept ones (blue)."""
    if not entries:
        return ""
    top = max([e["cost"]["before"]["lines"] for e in entries] + [1])
    row, bar, left, width = 34, 12, 190, 520
    h = row * len(entries) + 40
    out = [(f'<svg role="img" aria-label="shape guard lines per compile, '
           f'before and after" width="{left + width + 80}" height="{h}" font-size="12" font-family="sans-serif">'),
           (f'<text x="{left}" y="14" fill="#444">shape-guard lines per compile: '
           '<tspan fill="#999">■ Dynamo</tspan> <tspan fill="#2f6fb0">■ kept</tspan></text>')]
    for i, e in enumerate(entries):
        y = 26 + i * row
        before, after = e["cost"]["before"]["lines"], e["cost"]["after"]["lines"]
        wb, wa = width * before / top, width * after / top
        out.append(f'<a href="#{_e(e["anchor"])}"><text x="{left - 6}" y="{y + bar + 2}" text-anchor="end">'
                   f"{_e(_label(e)[:28])}</text>"
                   f'<rect x="{left}" y="{y}" width="{wb:.1f}" height="{bar}" fill="#bbb"><title>{before} lines '
                   f'before</title></rect><rect x="{left}" y="{y + bar + 1}" width="{wa:.1f}" height="{bar}" '
                   f'fill="#2f6fb0"><title>{after} lines kept</title></rect></a>'
                   f'<text x="{left + wb + 4:.1f}" y="{y + 10}" fill="#666">{before}</text>'
                   f'<text x="{left + wa + 4:.1f}" y="{y + bar + 11}" fill="#2f6fb0">{after}</text>')
    out.append("</svg>")
    return "".join(out)


def _section(e: dict[str, Any], show_file: bool) -> str:
    a = e["anchor"]
    path = str(e.get("co_filename") or "?")
    where = f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{e.get('co_firstlineno') or '?'}"
    out = [(f'<section id="{_e(a)}"><h2>{_e(_ident(e))} <code>{_e(e.get("co_name") or "?")}</code> '
           f'<span class="origin" title="{_e(path)}">{_e(where)}</span></h2>')]
    if show_file:
        out.append(f'<p class="note">log file {_e(e["file"])}</p>')
    if e["frame_compile_id"] > 0 or e["recompile_reasons"]:
        reasons = e["recompile_reasons"] or ["(the log names no failed guard)"]
        out.append("<p>Recompiled because these guards of earlier compiles failed:</p><ul>"
                   + "".join(f"<li><code>{_e(r)}</code></li>" for r in reasons) + "</ul>")
    m = e.get("metrics") or {}
    facts = []
    if "entire_frame_compile_time_s" in m:
        facts.append(f"compile {m['entire_frame_compile_time_s']:.2f} s")
    if e.get("guard_latency_us") is not None:
        facts.append(f"guard latency {e['guard_latency_us']:.1f} µs (Dynamo's measurement, every guard of the frame)")
    facts.append(f"{e['shape_env_guards_recorded']} guards recorded by the ShapeEnv while tracing")
    if m.get("fail_reason"):
        facts.append(f"failed: {m.get('fail_type')}: {m['fail_reason']}")
    out.append(f'<p class="note">{_e("; ".join(facts))}</p>')
    if e["status"] == "no_guards":
        out.append("<p>No guards were installed for this compile (it failed or was skipped).</p></section>")
        return "".join(out)
    before, after = e["cost"]["before"], e["cost"]["after"]
    out.append('<table class="cost"><tr><th>per call</th><th>lines</th><th>characters</th><th>operations</th>'
               "<th>divisions</th></tr>" + _cost_row("before", before) + _cost_row("after", after) + "</table>")
    if e.get("error"):
        err = e["error"]["error"]
        out.append(f"<p><b>symguard could not answer</b> ({_e(err.get('code'))}: {_e(err.get('message'))}); "
                   "every line is kept.</p>")
    elif e.get("result", {}).get("incomplete"):
        out.append("<p>The answer is partial (the deadline came first): undecided lines are kept.</p>")
    out.append(_symbols(e))
    out.append('<table class="guards"><tr><th>id</th><th>verdict</th><th>shape guard (as Dynamo checks it)</th>'
               "<th>why</th></tr>")
    for g in e["guards"]:
        rid = f"{a}-{g['id']}"
        links = ", ".join(f'<a href="#{_e(a)}-{_e(x)}">{_e(x)}</a>' for x in g["implied_by"])
        why = _e(g["why"]) + (f": {links}" if links else "")
        origin = f'<div class="origin">{_e(g["origin"])}</div>' if g["origin"] else ""
        out.append(f'<tr id="{_e(rid)}" class="{"kept" if g["kept"] else "dropped"}"><td>{_e(g["id"])}</td>'
                   f'<td><span class="v v-{_e(g["verdict"])}">{_e(g["verdict"])}</span></td>'
                   f'<td class="code">{_e(g["code"])}{origin}</td><td>{why}</td></tr>')
    out.append("</table>")
    if e.get("shape_env_guards"):
        out.append(f"<details><summary>{len(e['shape_env_guards'])} guards the ShapeEnv recorded while tracing "
                   "(sympy, before Dynamo simplified them into the lines above; suppressed guards and runtime "
                   "asserts included)</summary><ol>"
                   + "".join(f"<li><code>{_e(g)}</code></li>" for g in e["shape_env_guards"]) + "</ol></details>")
    if e.get("identity_guards"):
        out.append(f"<details><summary>{len(e['identity_guards'])} other top-level guards (object identity, "
                   "not shape guards; not analysed)</summary><ul>"
                   + "".join(f"<li><code>{_e(g['code'])}</code></li>" for g in e["identity_guards"]) + "</ul></details>")
    out.append("</section>")
    return "".join(out)


def _symbols(e: dict[str, Any]) -> str:
    syms = e["symbols"]
    if not syms and not e["specializations"]:
        return ""
    rows = "".join(f"<tr><td><code>{_e(s['symbol'])}</code></td><td><code>{_e(s['source'])}</code></td>"
                   f'<td class="num">{_e(s["value"])}</td><td><code>{_e(s["range_at_creation"])}</code></td></tr>'
                   for s in syms)
    spec = "".join(f"<li><code>{_e(s['symbol'])}</code> = {_e(s['value'])} ({_e(s['reason'])}; "
                   f"{_e(s['sources'])})</li>" for s in e["specializations"])
    return (f"<details><summary>{len(syms)} symbols, {len(e['specializations'])} specialized</summary>"
            "<table><tr><th>symbol</th><th>source</th><th>traced value (hint)</th><th>range when created</th></tr>"
            f"{rows}</table>" + (f"<p>Specialized to constants:</p><ul>{spec}</ul>" if spec else "")
            + "</details>")
