"""The Report page, the self-contained HTML report and the PNG / SVG export."""

from __future__ import annotations

import os
import re

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import numpy as np
import pandas as pd
import pytest

from subsetsel_core.viz import maps, rankings
from subsetsel_core.viz.report import (
    Report,
    Section,
    build_html,
    chromium_path,
    figure_images,
    table_html,
)

EVIL = '<script>alert("x")</script>'


def _evil_figures():
    coords = np.random.default_rng(0).normal(size=(4, 2))
    names = ["a", EVIL, "c&d", "=HYPERLINK()"]
    hover = pd.DataFrame({"kind": ["x", "<img src=x onerror=alert(1)>", "z", "w"]})
    mp = maps.map_figure(coords, names, hover=hover, selected=[1, 0], title=EVIL)
    board = pd.DataFrame({"position": [1, 2], "model": [EVIL, "m2"], "mean_rank": [1.2, 1.8],
                          "mean_score": [0.9, 0.8], "wins": [3, 1]})
    return {"map": mp, "leaderboard": rankings.leaderboard_figure(board)}


def test_html_report_is_self_contained_and_escaped():
    figs = _evil_figures()
    rep = Report(
        title=f"Report {EVIL}", subtitle="sub <b>", facts=[("Datasets", "4"), (EVIL, EVIL)],
        sections=[
            Section("Verdict", f"strategy {EVIL} beats random", highlight=True),
            Section("Map", figure=figs["map"], table=pd.DataFrame({"dataset": [EVIL], "x": [0.5]}), note=EVIL),
            Section("Board", figure=figs["leaderboard"]),
        ],
        footer=EVIL,
    )
    html = build_html(rep)
    assert html.startswith("<!DOCTYPE html>")
    assert EVIL not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    # plotly.js embedded exactly once, no external script
    assert not re.search(r"<script[^>]+src=", html)
    assert html.count("Plotly.newPlot") == 2
    assert len(html) > 1_000_000  # the library itself is inline
    assert 'id="figure-1"' in html and 'id="figure-2"' in html


def test_table_html_formats_and_escapes():
    out = table_html(pd.DataFrame({"name": ["<b>", None], "v": [0.123456, np.nan], "n": [3, 4]}))
    assert "&lt;b&gt;" in out and "<b>" not in out
    assert '<td class="num">0.123</td>' in out and "—" in out and '<td class="num">3</td>' in out


def test_report_page_renders_presentation_and_export():
    at = H.goto(H.new_app(), "report")
    assert not H.errors(at)
    labels = {b.proto.label for b in at.get("download_button")}
    assert {"Download the HTML report", "Subset CSV", "JSON sidecar"} <= labels
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Datasets"] == "112" and metrics["Subset size k"] == "10"
    assert any("No finished evaluation" in i.value for i in at.info)
    specs = H.plotly_specs(at)
    assert any("selected (in order)" in H.trace_names(s) for s in specs)


def test_report_page_shows_a_finished_evaluation():
    """After an evaluation the presentation view has its curves and its verdict."""
    at = H.new_app()
    H.goto(at, "evaluate")
    at.number_input(key="ev_trials").set_value(4)
    at.multiselect(key="ev_strategies").set_value(["random", "fafi-cosine"])
    at.button[0].click()
    at.run()
    H.wait_for_run(at)
    H.goto(at, "report")
    assert not H.errors(at)
    specs = H.plotly_specs(at)
    assert any("fafi-cosine" in H.trace_names(s) for s in specs)  # curves on the presentation view
    verdict = [x.value for x in at.success] + [x.value for x in at.info]
    assert any("random" in v for v in verdict)


@pytest.mark.skipif(chromium_path() is None, reason="no Chromium for kaleido")
def test_png_and_svg_export_with_kaleido():
    figs = _evil_figures()
    out = figure_images({"map": figs["map"]}, ("png", "svg"), width=500, height=400, scale=1)
    assert out["map"]["png"][:8] == b"\x89PNG\r\n\x1a\n"
    svg = out["map"]["svg"].decode("utf-8")
    assert svg.lstrip().startswith("<svg") and EVIL not in svg
    assert os.environ.get("BROWSER_PATH")


@pytest.mark.skipif(chromium_path() is None, reason="no Chromium for kaleido")
def test_report_page_renders_png_and_svg_downloads():
    at = H.goto(H.new_app(), "report")
    at.button(key="rp_render").click()
    at.run(timeout=180)
    assert not H.errors(at)
    labels = {b.proto.label for b in at.get("download_button")}
    assert {"All figures (ZIP)", "map.png", "map.svg", "leaderboard.png", "leaderboard.svg"} <= labels
