"""Self-contained HTML reports and PNG / SVG images of plotly figures.

:func:`build_html` writes one HTML file with every figure interactive and inline; the
plotly.js library is embedded once (``include_plotlyjs=True``), so the file works offline
and can be mailed or opened in a meeting. Every piece of text that may come from a user's
files (dataset, model and column names, descriptor values, titles) is HTML-escaped.

:func:`figure_images` renders figures to PNG and SVG with kaleido (which drives a headless
Chromium; Debian's ``/usr/bin/chromium`` is used when kaleido finds no other).
"""

from __future__ import annotations

import asyncio
import html
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from subsetsel_core.text import rounding, strict_json
from subsetsel_core.viz.style import for_export

__all__ = ["Report", "Section", "build_html", "chromium_path", "figure_html", "figure_images", "table_html"]

_CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")


@dataclass
class Section:
    """One section of a report.

    Attributes
    ----------
    title : str
    text : str
        Plain text (escaped; blank lines separate paragraphs).
    figure : plotly Figure, optional
    table : DataFrame, optional
        Shown after the figure; cells are escaped and numbers formatted.
    note : str
        A small caption under the figure / table.
    highlight : bool
        Draw the text as a call-out (for a verdict): neutral grey-blue, or green with ``positive``.
    positive : bool
        A positive verdict (green call-out); never red or pink.
    """

    title: str
    text: str = ""
    figure: go.Figure | None = None
    table: pd.DataFrame | None = None
    note: str = ""
    highlight: bool = False
    positive: bool = False


@dataclass
class Report:
    """A report: a title, headline facts and sections.

    Attributes
    ----------
    title, subtitle : str
    facts : list of (label, value)
        Shown as cards at the top.
    sections : list of Section
    footer : str
    provenance : dict, optional
        What made it (:func:`subsetsel_core.outputs.provenance.provenance`): shown in a last, folded
        section and embedded as ``<script type="application/json" id="provenance">``.
    """

    title: str
    subtitle: str = ""
    facts: list[tuple[str, str]] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    footer: str = ""
    provenance: dict[str, Any] | None = None


_CSS = """
:root { --ink:#1d2433; --muted:#5b6474; --line:#e3e6ec; --accent:#d62728; --bg:#f6f7f9; }
* { box-sizing: border-box; }
body { margin:0; font-family: Inter, "Segoe UI", Helvetica, Arial, sans-serif; color:var(--ink);
       background:var(--bg); line-height:1.5; }
header { background:#1d2433; color:#fff; padding:28px 48px 24px; }
header h1 { margin:0 0 6px; font-size:30px; font-weight:650; }
header p { margin:0; color:#c9cfdb; font-size:15px; }
main { max-width:1200px; margin:0 auto; padding:24px 32px 48px; }
.facts { display:grid; grid-template-columns:repeat(auto-fit, minmax(160px, 1fr)); gap:12px; margin:0 0 24px; }
.fact { background:#fff; border:1px solid var(--line); border-radius:10px; padding:12px 16px; }
.fact .label { color:var(--muted); font-size:12px; letter-spacing:.02em; }
.fact .value { font-size:22px; font-weight:650; margin-top:2px; word-break:break-word; }
section { background:#fff; border:1px solid var(--line); border-radius:12px; padding:20px 24px;
          margin:0 0 20px; page-break-inside:avoid; }
section h2 { margin:0 0 10px; font-size:20px; }
section p { margin:0 0 10px; }
.callout { border-left:5px solid #4a6fa5; background:#f2f5fa; padding:12px 16px; border-radius:6px;
           font-size:17px; }
.callout.positive { border-left-color:#2e7d32; background:#eef7ee; }
.note { color:var(--muted); font-size:13px; margin-top:6px; }
table { border-collapse:collapse; width:100%; font-size:14px; margin-top:8px; }
th, td { border-bottom:1px solid var(--line); padding:6px 10px; text-align:left; vertical-align:top; }
th { background:#f0f2f6; font-weight:600; }
td.num { text-align:right; font-variant-numeric:tabular-nums; }
footer { color:var(--muted); font-size:12px; text-align:center; padding:16px; }
@media print { header { -webkit-print-color-adjust:exact; print-color-adjust:exact; } body { background:#fff; } }
"""


def _paragraphs(text: str, cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return "".join(f"<p{attr}>{html.escape(p.strip())}</p>" for p in text.split("\n\n") if p.strip())


def _cell(value: Any, quantity: str | None = None) -> tuple[str, bool]:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "—", False
    if isinstance(value, bool | np.bool_):
        return str(bool(value)), False
    if isinstance(value, int | np.integer):
        return str(int(value)), True
    if isinstance(value, float | np.floating):
        v = float(value)
        if quantity is not None:  # the registry's rounding of the column's quantity
            return html.escape(rounding.text(v, quantity)), True
        # a column of no known quantity: three decimals, four significant digits when very small or large
        return html.escape(rounding.text(v, "agreement" if 1e-3 <= abs(v) < 1e4 else "score")), True
    return html.escape(str(value)), False


def table_html(df: pd.DataFrame, *, max_rows: int = 200) -> str:
    """An escaped HTML table of a DataFrame (numbers right-aligned and rounded by
    :mod:`subsetsel_core.text.rounding` for the columns it knows)."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    quantities = [rounding.quantity_of(c) for c in df.columns]
    rows = []
    for rec in df.head(max_rows).itertuples(index=False):
        cells = []
        for v, q in zip(rec, quantities, strict=True):
            text, num = _cell(v, q)
            cells.append(f'<td class="num">{text}</td>' if num else f"<td>{text}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    more = (f'<p class="note">… {len(df) - max_rows} more rows not shown.</p>' if len(df) > max_rows else "")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>{more}"


def build_html(report: Report) -> str:
    """The report as one self-contained HTML document (plotly.js embedded once).

    Parameters
    ----------
    report : Report

    Returns
    -------
    str
        A complete HTML page that works offline.
    """
    parts: list[str] = []
    js_done = False
    for i, sec in enumerate(report.sections):
        body = [f"<h2>{html.escape(sec.title)}</h2>"]
        if sec.text:
            body.append(_paragraphs(sec.text, ("callout positive" if sec.positive else "callout") if sec.highlight else ""))
        if sec.figure is not None:
            body.append(figure_html(sec.figure, f"figure-{i}", include_plotlyjs=not js_done))
            js_done = True
        if sec.table is not None and len(sec.table):
            body.append(table_html(sec.table))
        if sec.note:
            body.append(_paragraphs(sec.note, "note"))
        parts.append(f"<section>{''.join(body)}</section>")
    if report.provenance is not None:
        parts.append(_provenance_html(report.provenance))
    facts = "".join(
        f'<div class="fact"><div class="label">{html.escape(str(k))}</div>'
        f'<div class="value">{html.escape(str(v))}</div></div>'
        for k, v in report.facts
    )
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{html.escape(report.title)}</title><style>{_CSS}</style></head><body>"
        f"<header><h1>{html.escape(report.title)}</h1>"
        + (f"<p>{html.escape(report.subtitle)}</p>" if report.subtitle else "")
        + "</header><main>"
        + (f'<div class="facts">{facts}</div>' if facts else "")
        + "".join(parts)
        + "</main>"
        + (f"<footer>{html.escape(report.footer)}</footer>" if report.footer else "")
        + "</body></html>\n"
    )


_FIGURE_CONFIG = {"displaylogo": False, "responsive": True}


def _json_default(value: Any) -> Any:
    """What plotly's own encoder makes of a value JSON cannot hold (dates, decimals, pandas values)."""
    from plotly.utils import PlotlyJSONEncoder

    return PlotlyJSONEncoder().default(value)


def figure_html(figure: go.Figure, div_id: str, *, include_plotlyjs: bool) -> str:
    """One interactive figure as HTML: a ``<div>``, its data as strict JSON, and the call that draws it.

    The figure (styled for export) goes into a ``<script type="application/json">`` written by
    :func:`subsetsel_core.text.strict_json.for_script` — no NaN or Infinity (``null``: a gap), no ``<`` that
    could close the element — and is drawn with ``JSON.parse`` and ``Plotly.newPlot``, so a name in the
    data is never read as markup or code. ``include_plotlyjs`` embeds plotly.js itself (once per page).
    """
    from plotly.offline import get_plotlyjs

    if not re.fullmatch(r"[A-Za-z][\w-]*", div_id):
        raise ValueError(f"not an element id: {div_id!r}")
    fig = for_export(figure).to_plotly_json()
    data = strict_json.for_script({"data": fig.get("data", []), "layout": fig.get("layout", {}),
                                   "config": _FIGURE_CONFIG}, default=_json_default)
    height = fig.get("layout", {}).get("height")
    style = f"height:{int(height)}px; width:100%;" if isinstance(height, int | float) and height > 0 else \
        "height:100%; width:100%;"
    js = f'<script type="text/javascript">{get_plotlyjs()}</script>' if include_plotlyjs else ""
    draw = (f'(function(){{var f=JSON.parse(document.getElementById("{div_id}-data").textContent);'
            f'Plotly.newPlot("{div_id}",f.data,f.layout,f.config);}})();')
    return (f'<div>{js}<div id="{div_id}" class="plotly-graph-div" style="{style}"></div>'
            f'<script type="application/json" id="{div_id}-data">{data}</script>'
            f'<script type="text/javascript">{draw}</script></div>')


def _provenance_html(record: Mapping[str, Any]) -> str:
    """The folded provenance section, and the record as JSON for programs (``</`` escaped)."""
    rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td><code>{html.escape(_plain_value(v))}</code></td></tr>"
                   for k, v in record.items())
    data = strict_json.for_script(dict(record), default=str)  # no tag, no NaN in a script
    return (f'<section id="provenance-section"><details><summary><h2 style="display:inline">Provenance</h2></summary>'
            f'<p class="note">What made this report: the product version, the command or dashboard settings, the '
            f'seed, and the SHA-256 of each input file.</p><table><tbody>{rows}</tbody></table></details>'
            f'<script type="application/json" id="provenance">{data}</script></section>')


def _plain_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    return strict_json.dumps(value, default=str, indent=1)


def chromium_path() -> str | None:
    """The browser kaleido will use: ``BROWSER_PATH``, kaleido's own search, or Debian's chromium."""
    env = os.environ.get("BROWSER_PATH")
    if env and os.path.exists(env):
        return env
    try:
        from choreographer.utils import get_browser_path

        found = get_browser_path()
        if found:
            return str(found)
    except Exception:  # noqa: BLE001 - fall back to the usual places
        pass
    for c in _CHROMIUM_CANDIDATES:
        if os.path.exists(c):
            return c
    return shutil.which("chromium") or shutil.which("chromium-browser")


def figure_images(
    figures: Mapping[str, go.Figure],
    formats: Sequence[str] = ("png", "svg"),
    *,
    width: int = 1100,
    height: int | None = None,
    scale: float = 2.0,
) -> dict[str, dict[str, bytes]]:
    """Render figures with kaleido, one browser for all of them.

    Parameters
    ----------
    figures : mapping name → Figure
    formats : sequence of {"png", "svg", "pdf", "jpeg", "webp"}
    width, height : int
        Image size in CSS pixels (height: the figure's own, else 600).
    scale : float
        Pixel density of raster formats.

    Returns
    -------
    dict name → dict format → bytes

    Raises
    ------
    RuntimeError
        When no Chromium is found or kaleido fails; the message says what to install.
    """
    import kaleido

    path = chromium_path()
    if path is None:
        raise RuntimeError("no Chromium found for image export; install it (apt-get install chromium) or set "
                           "BROWSER_PATH to a Chrome / Chromium executable.")
    os.environ.setdefault("BROWSER_PATH", path)

    styled = {name: for_export(fig) for name, fig in figures.items()}

    async def render() -> dict[str, dict[str, bytes]]:
        out: dict[str, dict[str, bytes]] = {}
        async with kaleido.Kaleido(n=1) as k:
            for name, fig in figures.items():
                h = height or int(fig.layout.height or 600)
                out[name] = {}
                for fmt in formats:
                    opts = {"format": fmt, "width": width, "height": h, "scale": scale if fmt not in ("svg", "pdf") else 1}
                    out[name][fmt] = await k.calc_fig(styled[name], opts=opts)
        return out

    try:
        # A fresh thread has no running event loop, whatever the caller's thread has.
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, render()).result()
    except Exception as exc:  # noqa: BLE001 - kaleido / browser failures become one readable error
        raise RuntimeError(f"image export failed ({type(exc).__name__}: {exc}).") from exc
