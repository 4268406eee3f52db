"""The figures inside report.html: strict JSON in a data block, no way out of the ``<script>`` element."""

from __future__ import annotations

import json
import re

import numpy as np
import plotly.graph_objects as go
import pytest

from subsetsel_core.text import strict_json
from subsetsel_core.viz.report import Report, Section, build_html, figure_html

EVIL = ["</script><script>alert(1)</script>", "<!--", "]]>", "a\u2028b\u2029c", "&amp;", "</SCRIPT >"]


def _refuse(constant: str) -> None:
    raise ValueError(f"not strict JSON: {constant}")


def _blocks(page: str) -> list[str]:
    return re.findall(r'<script type="application/json" id="[\w-]+">(.*?)</script>', page, flags=re.S)


def test_figure_data_is_strict_json_and_cannot_close_the_script() -> None:
    fig = go.Figure(go.Scatter(x=[1.0, 2.0, float("nan"), 4.0, 5.0, 6.0], y=[float("inf"), -np.inf, 1, 2, 3, 4],
                               text=EVIL, name=EVIL[0]))
    fig.update_layout(title=EVIL[1])
    page = build_html(Report("t", sections=[Section("s", figure=fig), Section("u", figure=fig)],
                             provenance={"command": EVIL[0], "bad": float("nan")}))
    blocks = _blocks(page)
    assert len(blocks) == 3  # two figures and the provenance
    for blob in blocks:
        assert "<" not in blob and ">" not in blob and "\u2028" not in blob
        json.loads(blob, parse_constant=_refuse)
    data = json.loads(blocks[0])["data"][0]
    assert data["text"] == EVIL and data["name"] == EVIL[0] and data["y"][:2] == [None, None]
    assert page.count("<script") == page.count("</script>")
    assert page.count("Plotly.newPlot") == 2 and page.count('id="figure-0"') == 1
    # plotly.js once, before the first figure
    assert page.index("Plotly.newPlot") > page.index("plotly.js")


def test_for_script_round_trips() -> None:
    value = {"k<>&": EVIL, "n": [float("nan"), 1.5], "np": np.float64("inf")}
    text = strict_json.for_script(value)
    assert not set("<>&\u2028\u2029") & set(text)
    assert json.loads(text, parse_constant=_refuse) == {"k<>&": EVIL, "n": [None, 1.5], "np": None}


def test_figure_html_refuses_an_id_that_is_not_one() -> None:
    with pytest.raises(ValueError, match="not an element id"):
        figure_html(go.Figure(), 'x" onload="alert(1)', include_plotlyjs=False)
