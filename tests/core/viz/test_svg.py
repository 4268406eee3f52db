"""The start page's plain HTML/SVG renderings: content, escaping, colours."""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd

from subsetsel_core.viz import svg

NASTY = "a $x$ *b* _c_ <script>alert(1)</script> & \"q\" 'r' [l](u) `c` ~s~ \\ é\n"


def _decoded(markup: str) -> str:
    import html

    return html.unescape(markup)


def test_text_leaves_nothing_html_or_markdown_could_read() -> None:
    out = svg.text(NASTY)
    assert re.fullmatch(r"[A-Za-z0-9 ,.\-&#;]*", out), out
    assert _decoded(out) == NASTY
    assert svg.text("abcdefgh", limit=5) == "abcd&#8230;"


def test_size_tiles_show_labels_values_and_note() -> None:
    out = svg.size_tiles_html([("Datasets", "112"), ("Scores", "134,400")], note="higher is better")
    assert "\n" not in out
    text = re.sub(r"<[^>]+>", " ", _decoded(out))
    assert text.split() == ["Datasets", "112", "Scores", "134,400", "higher", "is", "better"]


def test_leaderboard_rows_in_rank_order_with_escaped_names() -> None:
    board = pd.DataFrame({"position": [1, 2, 3], "model": ["best", NASTY, "third"],
                          "mean_rank": [1.5, 2.0, 3.0], "mean_score": [0.9, np.nan, 0.7], "wins": [3, 1, 0]})
    out = svg.leaderboard_html(board, top=2)
    assert "<script" not in out and "$x$" not in out and "\n" not in out
    rows = re.findall(r"<tr title=\"([^\"]*)\">", out)
    assert len(rows) == 2 and _decoded(rows[0]).startswith("best: mean rank 1.50")
    assert "mean score —" in _decoded(rows[1])
    widths = [float(w) for w in re.findall(r"width:([0-9.]+)%;border-radius", out)]
    assert widths == [75.0, 100.0]  # bars relative to the longest shown
    banded = board.assign(rank_lo=[1.0, 1.0, 3.0], rank_hi=[2.0, 2.5, 3.0], tie_group=[1, 1, 2])
    out = svg.leaderboard_html(banded, top=3)
    shown = html.unescape(out)
    assert "95% rank interval" in shown and ">1–2.5<" in shown and shown.count(" ≈") == 2  # the first two tie
    assert out.count('style="background:#f1f3f7"') == 1  # tie group 2 shaded
    assert "tie group 1: not told apart" in html.unescape(out)


def _circles(svg: str) -> list[tuple[float, float, str, str]]:
    return [(float(x), float(y), fill, _decoded(tip)) for x, y, fill, tip in
            re.findall(r'<circle class="ss-pt" cx="([0-9.]+)" cy="([0-9.]+)" r="5" fill="([^"]+)"[^>]*><title>([^<]*)</title>',
                       svg)]


def test_map_points_tooltips_and_categories() -> None:
    coords = np.array([[0.0, 0.0], [1.0, 2.0], [np.nan, 1.0], [2.0, 1.0]])
    names = ["d0", NASTY, "lost", "d3"]
    hover = pd.DataFrame({"length": [10, 20, 30, 40], "type": ["ecg", "image", "ecg", None]})
    color = pd.Series(["ecg", "image", "ecg", None], name="type")
    out = svg.map_svg(coords, names, hover=hover, color=color, method="PCA")
    assert "\n" not in out and "<script" not in out
    pts = _circles(out)
    assert len(pts) == 3  # the NaN row is left out
    assert len(NASTY) > 60 and pts[1][3].split("\n") == [NASTY[:59] + "…", "length: 20", "type: image"]
    assert pts[0][3] == "d0\nlength: 10\ntype: ecg"
    # higher y value is drawn higher up (smaller SVG y)
    assert pts[1][1] < pts[0][1] and pts[2][0] > pts[1][0]
    fills = {p[3].split("\n")[0]: p[2] for p in pts}
    assert fills["d0"] != fills["d3"]  # ecg vs missing
    legend = _decoded(out)
    for label in ("type", "ecg", "image", "missing", "PCA 1", "PCA 2"):
        assert f">{label}<" in legend


def test_map_numeric_colour_scale_and_missing_values() -> None:
    rng = np.random.default_rng(0)
    coords = rng.normal(size=(6, 2))
    color = pd.Series([1.0, 2.0, 3.0, 4.0, 5.0, np.nan], name="length")
    out = svg.map_svg(coords, [f"d{i}" for i in range(6)], color=color)
    fills = [p[2] for p in _circles(out)]
    assert fills[-1] == "#c7c7c7" and len(set(fills[:5])) == 5
    assert "ss-viridis" in out and ">5<" in out and ">1<" in out and ">length<" in out


def test_map_without_colour_or_with_constant_coordinates() -> None:
    out = svg.map_svg(np.zeros((3, 2)), ["a", "b", "c"], color=None)
    pts = _circles(out)
    assert len(pts) == 3 and len({p[2] for p in pts}) == 1
    assert all(np.isfinite([p[0] for p in pts]))


def test_map_selection_layer_order_lines_rings_and_memo() -> None:
    rng = np.random.default_rng(1)
    coords = rng.normal(size=(8, 2))
    coords[5] = np.nan  # not drawable: no marker, no line, no ring
    names = [f"d{i}" for i in range(8)]
    names[3] = NASTY
    rep = [0, 0, 2, 2, 0, 2, 6, 6]  # chosen: 0, 2, 6 (each stands for itself)
    memo: dict[str, object] = {}
    out = svg.map_svg(coords, names, selected=[2, 0, 6, 5], selected_color="#123456", representative=rep,
                         poorly=[3, 5], memo=memo)
    assert "\n" not in out and "<script" not in out and "svg" in memo
    assert out.count('class="ss-sel"') == 3 and "nan" not in out  # the NaN row gets no marker
    assert "3 chosen, numbered" in _decoded(out)
    sel = re.findall(r'<g class="ss-sel" data-order="(\d+)" data-dataset="([^"]*)"><title>([^<]*)</title>'
                     r'<circle cx="([0-9.]+)" cy="([0-9.]+)" r="11" fill="#123456"', out)
    assert [(int(o), d) for o, d, *_ in sel] == [(1, "d2"), (2, "d0"), (3, "d6")]  # order kept, NaN row skipped
    assert _decoded(sel[0][2]).endswith("\nselected #1")
    pts = {_decoded(tip).split("\n")[0]: (x, y) for x, y, _, tip in _circles(out)}
    assert (float(sel[1][3]), float(sel[1][4])) == pts["d0"]  # the marker sits on its dataset
    path = re.search(r'<path class="ss-cover" d="([^"]*)"', out).group(1)
    assert path.count("M") == 4  # d1, d3, d4 -> their chosen one, d7 -> d6; d5 (NaN) left out
    ring = re.findall(r'<circle class="ss-poor" data-dataset="([^"]*)"[^>]*><title>([^<]*)</title>', out)
    assert [_decoded(d) for d, _ in ring] == [NASTY]
    assert _decoded(ring[0][1]).endswith("not covered well: nearest chosen is d2")
    # the memo gives the same map for another selection, without rebuilding the points
    memo["svg"] = (*memo["svg"][:4], memo["svg"][4] + "<!--kept-->", memo["svg"][5])  # type: ignore[index]
    again = svg.map_svg(coords, names, selected=[1], memo=memo)
    assert "<!--kept-->" in again and [o for o, *_ in re.findall(r'data-order="(\d+)"', again)] == ["1"]
    assert "ss-cover" not in again.replace(".ss-cover{", "") and 'class="ss-poor"' not in again


def test_map_selection_markup_escapes_names_and_colours() -> None:
    names = ["d0", NASTY, 'x" onmouseover="alert(1)']
    out = svg.map_svg(np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.5]]), names, selected=[1, 2],
                         selected_color='red" onload="alert(2)')
    assert ' onload="' not in out and ' onmouseover="' not in out and "<script" not in out
    marked = re.findall(r'<g class="ss-sel" data-order="\d+" data-dataset="([^"]*)">', out)
    assert [_decoded(d) for d in marked] == names[1:]  # the attribute holds the whole name, as text
    fills = re.findall(r'<g class="ss-sel"[^>]*><title>[^<]*</title><circle [^>]*fill="([^"]*)"', out)
    assert fills and all(_decoded(f) == 'red" onload="alert(2)' for f in fills)  # inert text in one attribute


def test_map_constant_axis_is_drawn_in_the_middle() -> None:
    out = svg.map_svg(np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]]), ["a", "b", "c"], height=460)
    ys = {p[1] for p in _circles(out)}
    assert len(ys) == 1 and abs(ys.pop() - (10 + (460 - 40) / 2)) < 1  # the frame's vertical middle
    one = svg.map_svg(np.array([[4.0, 4.0]]), ["only"], width=540, height=460)
    (x, y, _, _), = _circles(one)
    assert abs(x - (28 + (540 - 38) / 2)) < 1 and abs(y - (10 + 420 / 2)) < 1
