"""A benchmark at a glance in plain HTML and SVG: size tiles, a leaderboard and a map.

The browser draws these at once, with no plotting library to load — the dashboard's start
page uses them so that the benchmark's size, its leaderboard and a map appear together
with the page (in a headless browser on two cores, plotly alone takes 2–3 s to start).
The interactive plotly versions live on the other pages and in the reports.

The markup is one line without blank lines, so that it can go through Markdown (as
Streamlit's ``st.markdown(..., unsafe_allow_html=True)`` does) unchanged: every text that
comes from a user's files is written as character references (:func:`text`), which
neither HTML nor Markdown (emphasis, links, ``$`` maths) can interpret.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

import numpy as np
import pandas as pd

from subsetsel_core.text import rounding
from subsetsel_core.viz.maps import color_scale

__all__ = ["leaderboard_html", "map_svg", "size_tiles_html", "text"]

_SAFE = re.compile(r"[^A-Za-z0-9 ,.\-]")
_FONT = "font-family:inherit"  # the page's own font
_INK = "#31333f"
_MUTED = "#6b7080"
_BAR = "#4c78a8"
_MISSING = "#c7c7c7"
_HOVER_COLUMNS = 8
_HOVER_TEXT = 60
#: The map without a selection: point positions, which are drawable, tooltips, frame and points, legend.
_SvgBase = tuple[np.ndarray, np.ndarray, np.ndarray, list[str], str, str]


def text(value: object, limit: int | None = None) -> str:
    """``value`` as text safe in HTML, SVG and Markdown: every character other than
    letters, digits, space, comma, full stop and hyphen as a numeric character reference.

    Parameters
    ----------
    value : object
        Converted with ``str``.
    limit : int, optional
        Longer texts are cut to ``limit`` characters, the last one an ellipsis.
    """
    s = str(value)
    if limit is not None and len(s) > limit:
        s = s[: limit - 1] + "…"
    return _SAFE.sub(lambda m: f"&#{ord(m.group(0))};", s)


def _number(v: object, quantity: str = "descriptor") -> str:
    """A value for people: a float by the rule of ``quantity``, anything else as it is."""
    if isinstance(v, float | np.floating):
        return rounding.text(float(v), quantity)
    return "—" if v is None else str(v)


def _at(v: float, decimals: int = 1) -> str:
    """A number for the markup, not for people: a coordinate, a width, a gradient offset."""
    return f"{float(v):.{decimals}f}"


def size_tiles_html(tiles: Sequence[tuple[str, str]], *, note: str | None = None) -> str:
    """A row of labelled numbers (wrapping on narrow screens).

    Parameters
    ----------
    tiles : sequence of (label, value)
    note : str, optional
        A small line under the tiles.
    """
    cells = "".join(
        f'<div style="min-width:120px;flex:1 1 0"><div style="font-size:0.875rem;color:{_MUTED}">{text(label)}</div>'
        f'<div style="font-size:2rem;line-height:1.25;color:{_INK}">{text(value)}</div></div>'
        for label, value in tiles
    )
    foot = f'<div style="font-size:0.8rem;color:{_MUTED};margin-top:2px">{text(note)}</div>' if note else ""
    return (f'<div class="ss-tiles" style="{_FONT};margin:0.25rem 0 0.75rem">'
            f'<div style="display:flex;flex-wrap:wrap;gap:12px 24px">{cells}</div>{foot}</div>')


def _interval(lo: float, hi: float) -> str:
    return f"{lo:g}" if lo == hi else f"{lo:g}–{hi:g}"


def leaderboard_html(board: pd.DataFrame, *, top: int = 15) -> str:
    """The best models' mean rank as a table with bars (1 = best; shorter is better).

    Parameters
    ----------
    board : DataFrame
        ``Benchmark.leaderboard()``: columns ``position, model, mean_rank, mean_score, wins``;
        with ``rank_lo, rank_hi, tie_group`` (``Stability.annotate``) a column of 95 % rank
        intervals is added and tie groups are shaded alike, marked "≈"; with ``datasets``
        (a table with gaps) a column of how many datasets rank each model.
    top : int
        Number of models shown.
    """
    b = board.head(top)
    worst = float(b["mean_rank"].max()) if len(b) else 1.0
    th = f'style="text-align:left;font-weight:600;color:{_MUTED};padding:3px 6px;border-bottom:1px solid #e6e9ef"'
    intervals = "rank_lo" in b.columns
    counted = "datasets" in b.columns
    sizes = board["tie_group"].value_counts() if intervals else None
    rows = []
    for i, (pos, model, rank, score, wins) in enumerate(zip(b["position"], b["model"], b["mean_rank"],
                                                            b["mean_score"], b["wins"], strict=True)):
        width = 100.0 * float(rank) / worst if worst > 0 else 0.0
        tip = f"{model}: mean rank {rounding.text(rank, 'mean_rank')}, mean score {_number(score, 'score')}, wins {int(wins)}"
        extra, shade, mark = "", "", ""
        if intervals and sizes is not None:
            lo, hi, group = float(b["rank_lo"].iloc[i]), float(b["rank_hi"].iloc[i]), int(b["tie_group"].iloc[i])
            tied = int(sizes.get(group, 1)) > 1
            tip += f", 95 % rank interval {_interval(lo, hi)}" + (
                f", tie group {group}: not told apart from its neighbours" if tied else "")
            extra = f'<td style="padding:2px 6px;text-align:right">{text(_interval(lo, hi))}</td>'
            shade = ' style="background:#f1f3f7"' if group % 2 == 0 else ""
            mark = " ≈" if tied else ""
        if counted:
            tip += f", ranked on {int(b['datasets'].iloc[i])} datasets"
            extra += f'<td style="padding:2px 6px;text-align:right">{int(b["datasets"].iloc[i])}</td>'
        rows.append(
            f'<tr title="{text(tip)}"{shade}><td style="padding:2px 6px;color:{_MUTED}">'
            f'{int(pos)}{mark}</td>'
            f'<td style="padding:2px 6px;max-width:14rem;overflow:hidden;text-overflow:ellipsis;white-space:nowrap">'
            f'{text(model, 40)}</td>'
            f'<td style="padding:2px 6px;width:40%"><div style="display:flex;align-items:center;gap:6px">'
            f'<div style="flex:1 1 auto"><div style="background:{_BAR};height:0.8rem;width:{_at(width)}%;'
            f'border-radius:2px"></div></div><span style="min-width:2.6rem;text-align:right">'
            f'{rounding.text(rank, "mean_rank")}</span></div></td>'
            f'{extra}<td style="padding:2px 6px;text-align:right">{text(_number(score, "score"))}</td>'
            f'<td style="padding:2px 6px;text-align:right">{int(wins)}</td></tr>'
        )
    head = (f"<tr><th {th}>#</th><th {th}>model</th><th {th}>mean rank (1 = best)</th>"
            + (f"<th {th}>95% rank interval</th>" if intervals else "")
            + (f"<th {th}>datasets</th>" if counted else "")
            + f"<th {th}>mean score</th><th {th}>wins</th></tr>")
    return (f'<table class="ss-leaderboard" style="{_FONT};border-collapse:collapse;width:100%;font-size:0.9rem;'
            f'color:{_INK}"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>')


def _hover(datasets: Sequence[str], hover: pd.DataFrame | None) -> list[str]:
    lines = [[text(d, _HOVER_TEXT)] for d in datasets]
    if hover is not None and hover.shape[1]:
        for c in list(hover.columns)[:_HOVER_COLUMNS]:
            for row, v in zip(lines, hover[c].tolist(), strict=True):
                row.append(text(f"{c}: {_number(v)}", _HOVER_TEXT))
    return ["&#10;".join(row) for row in lines]


def map_svg(
    coords: np.ndarray,
    datasets: Sequence[str],
    *,
    hover: pd.DataFrame | None = None,
    color: pd.Series | None = None,
    method: str = "UMAP",
    width: int = 540,
    height: int = 460,
    selected: Sequence[int] = (),
    selected_color: str = "#d62728",
    representative: Sequence[int] | None = None,
    poorly: Sequence[int] = (),
    memo: dict[str, object] | None = None,
) -> str:
    """The 2-D map of the datasets as an SVG image that scales to its column.

    Each point's tooltip (the browser's own, on hover) names the dataset and its first
    descriptor values. Colours follow :func:`subsetsel_core.viz.maps.color_scale`, as on
    the interactive map (Viridis for numbers, a legend for categories). A selection is
    drawn as on :func:`subsetsel_core.viz.maps.map_figure`: numbered markers in selection
    order, optional coverage lines and rings; the browser redraws the whole image in a
    few milliseconds, where a plotly chart takes a few hundred.

    Parameters
    ----------
    coords : ndarray of shape (n, 2)
        Projected positions, rows in ``datasets`` order; rows with NaN are left out.
    datasets : sequence of str, length n
    hover : DataFrame, optional
        Rows in ``datasets`` order; its first columns are shown on hover.
    color : Series, optional
        One value per dataset (``datasets`` order); ``color.name`` is the legend's title.
    method : str
        Projection name for the axis titles.
    width, height : int
        Size in pixels at full scale.
    selected : sequence of int
        Chosen dataset positions in selection order: drawn as numbered markers (class
        ``ss-sel``, attribute ``data-order``) in ``selected_color``.
    representative : sequence of int, optional
        For each dataset, the position of the chosen dataset that stands for it: a thin
        line joins them (class ``ss-cover``).
    poorly : sequence of int
        Datasets not covered well: ringed in red (class ``ss-poor``), with the chosen dataset
        nearest to them in the tooltip; drawn only with ``representative``, as on the
        plotly map.
    memo : dict, optional
        Kept by the caller between calls that differ only in ``selected``,
        ``selected_color``, ``representative`` and ``poorly``: the map without them
        (positions, colours, tooltips, legend) is built once.

    Returns
    -------
    str
        ``<div><svg>…</svg></div>`` on one line.
    """
    kept = None if memo is None else memo.get("svg")
    if kept is None:
        kept = _svg_base(coords, datasets, hover, color, method, width, height)
        if memo is not None:
            memo["svg"] = kept
    px, py, ok, tips, drawn, legend = cast(_SvgBase, kept)
    chosen = _selection_svg(px, py, ok, datasets, tips, selected, selected_color, representative, poorly)
    shown = sum(1 for i in selected if ok[int(i)])
    label = text(f"Map of {int(ok.sum())} datasets ({method})"
                 + (f", {shown} chosen, numbered in selection order" if shown else ""))
    return (f'<div class="ss-map" style="{_FONT}"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
            f'width="100%" style="max-width:{width}px;height:auto" role="img" aria-label="{label}">'
            f'<style>{_MAP_CSS}</style>{drawn}{chosen}{legend}</svg></div>')


def _svg_base(coords: np.ndarray, datasets: Sequence[str], hover: pd.DataFrame | None, color: pd.Series | None,
              method: str, width: int, height: int) -> _SvgBase:
    """Point positions in the image, which are drawable, tooltips, the frame with the points, the legend."""
    from plotly.colors import sample_colorscale

    xy = np.asarray(coords, dtype=float).reshape(-1, 2)
    n = xy.shape[0]
    scale = color_scale(color)
    fills = [_BAR] * n
    legend: list[str] = []
    legend_w = 0
    if scale is not None and scale.numeric is not None:
        vals = scale.numeric
        ok = np.isfinite(vals)
        lo, hi = (float(vals[ok].min()), float(vals[ok].max())) if ok.any() else (0.0, 1.0)
        t = np.where(ok, (vals - lo) / (hi - lo) if hi > lo else 0.5, 0.0)
        sampled = sample_colorscale("Viridis", [float(v) for v in t])
        fills = [c if o else _MISSING for c, o in zip(sampled, ok, strict=True)]
        legend_w = 110
        stops = "".join(f'<stop offset="{_at(q, 2)}" stop-color="{c}"/>'
                        for q, c in zip(np.linspace(0, 1, 9), sample_colorscale("Viridis", list(np.linspace(1, 0, 9))),
                                        strict=True))
        x0 = width - legend_w + 14
        legend = [
            f'<defs><linearGradient id="ss-viridis" x1="0" y1="0" x2="0" y2="1">{stops}</linearGradient></defs>',
            f'<text x="{x0}" y="22" font-size="13" fill="{_INK}">{text(scale.label, 14)}</text>',
            f'<rect x="{x0}" y="32" width="14" height="{height - 100}" fill="url(#ss-viridis)"/>',
            f'<text x="{x0 + 20}" y="42" font-size="12" fill="{_MUTED}">{text(_number(hi))}</text>',
            f'<text x="{x0 + 20}" y="{height - 70}" font-size="12" fill="{_MUTED}">{text(_number(lo))}</text>',
        ]
    elif scale is not None and scale.categories is not None:
        fills = [scale.palette[c] for c in scale.categories]
        legend_w = 140
        x0 = width - legend_w + 14
        legend = [f'<text x="{x0}" y="22" font-size="13" fill="{_INK}">{text(scale.label, 18)}</text>']
        for i, (c, col) in enumerate(scale.palette.items()):
            y = 42 + 20 * i
            legend.append(f'<circle cx="{x0 + 5}" cy="{y - 4}" r="5" fill="{col}"/>'
                          f'<text x="{x0 + 16}" y="{y}" font-size="12" fill="{_INK}">{text(c, 18)}</text>')
    left, right, top, bottom = 28, 10 + legend_w, 10, 30
    pw, ph = width - left - right, height - top - bottom
    ok = np.isfinite(xy).all(axis=1)
    if ok.any():
        lo2, hi2 = xy[ok].min(axis=0), xy[ok].max(axis=0)
    else:
        lo2, hi2 = np.zeros(2), np.ones(2)
    flat = ~(hi2 - lo2 > 0)  # a constant axis (or one dataset): its points in the middle
    span = np.where(flat, 1.0, hi2 - lo2)
    frac = np.where(flat, 0.5, (xy - lo2) / span)
    px = left + 14 + frac[:, 0] * (pw - 28)
    py = top + ph - 14 - frac[:, 1] * (ph - 28)
    tips = _hover(datasets, hover)
    points = "".join(
        f'<circle class="ss-pt" cx="{_at(px[i])}" cy="{_at(py[i])}" r="5" fill="{fills[i]}" fill-opacity="0.85" '
        f'stroke="#fff" stroke-width="0.8"><title>{tips[i]}</title></circle>'
        for i in np.flatnonzero(ok).tolist()
    )
    m = text(method)
    frame = (f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="#fff" stroke="#c9ced8"/>'
             f'<text x="{_at(left + pw / 2, 0)}" y="{height - 9}" font-size="12" fill="{_MUTED}" text-anchor="middle">'
             f"{m} 1</text>"
             f'<text x="14" y="{_at(top + ph / 2, 0)}" font-size="12" fill="{_MUTED}" text-anchor="middle" '
             f'transform="rotate(-90 14 {_at(top + ph / 2, 0)})">{m} 2</text>')
    return px, py, ok, tips, frame + points, "".join(legend)


_MAP_CSS = (".ss-pt:hover{stroke:#31333f;stroke-width:2}.ss-sel:hover circle{stroke-width:3}"
            ".ss-sel text,.ss-cover{pointer-events:none}")


def _selection_svg(px: np.ndarray, py: np.ndarray, ok: np.ndarray, datasets: Sequence[str], tips: Sequence[str],
                   selected: Sequence[int], color: str, representative: Sequence[int] | None,
                   poorly: Sequence[int]) -> str:
    """Coverage lines, rings and numbered markers over the map's points (SVG elements)."""
    out = []
    if representative is not None:
        rep = np.asarray(list(representative), dtype=int)
        free = [i for i in np.flatnonzero(rep != np.arange(rep.size)).tolist() if ok[i] and ok[rep[i]]]
        if free:
            d = "".join(f"M{_at(px[i])} {_at(py[i])}L{_at(px[rep[i]])} {_at(py[rep[i]])}" for i in free)
            out.append(f'<path class="ss-cover" d="{d}" stroke="#5b6270" stroke-opacity="0.55" stroke-width="1" '
                       'fill="none"/>')
        for i in (int(b) for b in poorly):
            if ok[i]:
                out.append(f'<circle class="ss-poor" data-dataset="{text(datasets[i])}" cx="{_at(px[i])}" '
                           f'cy="{_at(py[i])}" r="8.5" fill="none" stroke="#e45756" stroke-width="2">'
                           f'<title>{tips[i]}&#10;not covered well: nearest chosen is '
                           f'{text(datasets[rep[i]], _HOVER_TEXT)}</title></circle>')
    fill = text(color) if not re.fullmatch(r"#[0-9A-Fa-f]{3,8}", color) else color
    for order, i in enumerate((int(v) for v in selected), start=1):
        if not ok[i]:
            continue
        out.append(f'<g class="ss-sel" data-order="{order}" data-dataset="{text(datasets[i])}">'
                   f'<title>{tips[i]}&#10;selected #{order}</title>'
                   f'<circle cx="{_at(px[i])}" cy="{_at(py[i])}" r="11" fill="{fill}" fill-opacity="0.95" stroke="#222" '
                   f'stroke-width="1.5"/><text x="{_at(px[i])}" y="{_at(py[i])}" dy="0.35em" text-anchor="middle" '
                   f'font-size="11" fill="#fff">{order}</text></g>')
    return "".join(out)
