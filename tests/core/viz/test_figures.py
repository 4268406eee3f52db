"""The plotly figures of ``subsetsel_core.viz``: strategy colours, the memoised map, imports."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from subsetsel_core.strategies import REGISTRY
from subsetsel_core.viz import curves, maps, profiles, style


def _spec(fig: go.Figure) -> dict[str, object]:
    return json.loads(pio.to_json(fig, validate=False))


def _curves_frame() -> pd.DataFrame:
    rows = []
    for key, strat, rep in [("random", "random", None), ("fafi-cosine [a]", "fafi-cosine", "a"),
                            ("d-optimal [b]", "d-optimal", "b"), ("mine", "mine", "a")]:
        for k in range(2, 8):
            rows.append((key, strat, rep, "spearman", k, 0.5 + 0.05 * k, 0.4 + 0.05 * k, 0.6 + 0.05 * k))
    return pd.DataFrame(rows, columns=["key", "strategy", "representation", "metric", "k", "mean", "lo", "hi"])


def test_strategy_colours_come_from_the_registry() -> None:
    for name, info in REGISTRY.items():
        assert style.strategy_color(name) == info.colour
        assert style.strategy_color(f"{name} [some table]") == info.colour
    other = style.strategy_color("my-own")
    assert other.startswith("#") and other == style.strategy_color("my-own [x]") == style.strategy_color("my-own")
    fig = curves.curves_figure(_curves_frame(), "spearman")
    means = {t.name: t.line.color for t in fig.data if t.mode == "lines+markers"}
    assert means == {"random": REGISTRY["random"].colour, "fafi-cosine [a]": REGISTRY["fafi-cosine"].colour,
                     "d-optimal [b]": REGISTRY["d-optimal"].colour, "mine": style.strategy_color("mine")}
    bands = [t for t in fig.data if t.fill == "tonexty"]
    assert len(bands) == 4 and bands[1].fillcolor == style.rgba(REGISTRY["fafi-cosine"].colour, 0.13)
    dashes = {t.name: t.line.dash for t in fig.data if t.mode == "lines+markers"}
    assert dashes == {"random": "dot", "fafi-cosine [a]": "solid", "d-optimal [b]": "dash", "mine": "solid"}


def test_profile_titles_and_colours() -> None:
    ks = np.arange(2, 7)
    band = {"spearman": (np.full(5, 0.5), np.full(5, 0.4), np.full(5, 0.6))}
    fig = profiles.k_profile_figure(ks, {"spearman": np.linspace(0.6, 0.9, 5)}, band, "spearman",
                                    strategy="a-optimal", current_k=4, title="<i>t</i>")
    assert [t.name for t in fig.data][2:] == ["random subsets (median, 95% band)", "a-optimal", "k = 4"]
    assert fig.data[3].line.color == fig.data[4].marker.line.color == REGISTRY["a-optimal"].colour
    assert fig.data[2].line.color == REGISTRY["random"].colour
    assert fig.layout.title.text == "&lt;i&gt;t&lt;/i&gt;"
    assert fig.layout.yaxis.title.text == style.metric_title("spearman") and "is better" in fig.layout.yaxis.title.text


@pytest.mark.parametrize("colour", ["kind", "size", None])
def test_memoised_map_equals_a_fresh_build_and_the_memo_stays_as_built(colour: str | None) -> None:
    rng = np.random.default_rng(2)
    coords = rng.normal(size=(40, 2))
    names = [f"d<{i}>" for i in range(40)]
    hover = pd.DataFrame({"size": rng.random(40), "kind": list("abcd" * 10)})
    rep = rng.integers(0, 6, 40)
    rep[:6] = np.arange(6)
    memo: dict[str, object] = {}
    args = {"hover": hover, "color": None if colour is None else hover[colour], "method": "PCA", "title": "map"}
    first = maps.map_figure(coords, names, **args, memo=memo)
    assert _spec(first) == _spec(maps.map_figure(coords, names, **args))
    selections = [list(rng.permutation(40)[:k]) for k in range(1, 9)]

    def draw(sel: list[int], out: list[dict[str, object]]) -> None:
        out.append(_spec(maps.map_figure(coords, names, **args, selected=sel, selected_color="#123456",
                                         representative=rep, poorly=[7, 9], memo=memo)))

    results: list[list[dict[str, object]]] = [[] for _ in selections]
    threads = [threading.Thread(target=draw, args=(s, r)) for s, r in zip(selections, results, strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for sel, (got,) in zip(selections, results, strict=True):
        fresh = maps.map_figure(coords, names, **args, selected=sel, selected_color="#123456",
                                representative=rep, poorly=[7, 9])
        assert got == _spec(fresh)
        plain = maps.map_figure(coords, names, **args, selected=sel, selected_color="#123456")
        assert got == _spec(maps.add_coverage_lines(plain, coords, names, rep, poorly=[7, 9]))
        names_in_order = [t["name"] for t in got["data"]]  # type: ignore[index]
        assert names_in_order[:2] == ["datasets", maps.COVERAGE_TRACE]
        assert names_in_order[-2:] == ["selected (in order)", maps.POORLY_COVERED_TRACE]
    assert _spec(maps.map_figure(coords, names, **args, memo=memo)) == _spec(first)  # the memo is unchanged
    assert _spec(go.Figure(_spec(first))) == _spec(first)  # passes plotly's checks


def test_core_import_loads_no_plotly_and_viz_no_streamlit() -> None:
    code = ("import sys, subsetsel_core; assert 'plotly' not in sys.modules, 'plotly'; "
            "from subsetsel_core.viz import curves, geometry, maps, profiles, rankings, report, style, svg; "
            "assert 'streamlit' not in sys.modules, 'streamlit'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_theory_hovers_show_the_shares_as_percentages_once() -> None:
    """The axes carry percentages; the hovers read the shares (0–1), which d3's percent format scales by 100."""
    from subsetsel_core.text.rounding import d3
    from subsetsel_core.viz import theory

    frame = pd.DataFrame({"k": [2, 3], "covering_radius": [1.5, 1.2], "variance_bound": [0.44, 0.3],
                          "predicted": [0.27, 0.2], "observed": [0.18, 0.2], "observed_lo": [0.1, 0.12],
                          "observed_hi": [0.3, 0.25]})
    pct = f":{d3('percent')}}}"
    hovered = [t for t in theory.theory_figure(frame).data if t.hovertemplate and pct in t.hovertemplate]
    assert len(hovered) == 2
    for t in hovered:
        assert " %<" not in t.hovertemplate and "%{y" not in t.hovertemplate
        assert np.asarray(t.customdata).max() <= 1.0 and np.asarray(t.y).max() > 1.0  # shares in, percentages up
    pred = frame.assign(predicted_lo=[0.2, 0.1], predicted_hi=[0.3, 0.25])
    for t in theory.prediction_figure({"random": pred}).data:
        if t.hovertemplate:
            assert pct in t.hovertemplate and "%{y" not in t.hovertemplate and " %<" not in t.hovertemplate
            assert np.asarray(t.customdata).max() <= 1.0
