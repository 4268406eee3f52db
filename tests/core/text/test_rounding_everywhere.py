"""Every number a person reads goes through :mod:`subsetsel_core.text.rounding`.

Two checks. On the source: no float format with a precision (``f"{x:.2f}"``, ``format(x, ".3g")``,
``"%.1f" % x``, ``"{:.1%}".format(x)``, a plotly hover's ``%{y:.3f}``) outside the registry, but
for the markup helpers of :data:`NOT_FOR_PEOPLE` and the modules still to be routed,
:data:`TO_ROUTE` (a list that may only shrink). On the output: every dashboard page on the TSC
sample, before and after a short evaluation, and the HTML report of ``subsetsel report`` show
no raw float (six or more digits after the point, ``nan``, ``inf``).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("subsetsel_core", "subsetsel_app", "pages")
REGISTRY = "subsetsel_core/text/rounding.py"

#: Formats that write numbers for a machine (markup, names that files key on, a widget's own
#: starting value), not for a person to read: (module, function) → why.
NOT_FOR_PEOPLE: dict[tuple[str, str], str] = {
    ("subsetsel_core/viz/svg.py", "_at"): "coordinates, widths and gradient offsets of the SVG markup",
    ("subsetsel_core/representations/recipe.py", "recipe_name"):
        "the PCA share inside a representation's name, which JSON and run files key on",
    ("subsetsel_app/views/select.py", "default_budget"):
        "the budget widget's starting value (a setting the user edits), not a result",
    ("subsetsel_core/io/numeric_cells.py", "_unmarked"):
        "a two-number cell's mean written back as the cell's text for the number parser (parsed, not shown)",
    ("subsetsel_core/io/numeric_cells.py", "pair_means"):
        "a two-number cell's mean written back as the cell's text for the number parser (parsed, not shown)",
    ("subsetsel_core/outputs/export.py", "file_stem"):
        "the budget inside an exported subset's file name (a name the files are saved under), not a shown result",
}

#: Modules whose shown numbers are still formatted by hand (path → formats today). This list
#: may only shrink: route a number through ``rounding.text`` and lower its count.
TO_ROUTE: dict[str, int] = {}

#: A precision in a format spec: ``.2f``, ``.3g``, ``.1%``, ``+.3f``, ``,.0f``, ``.{digits}f``.
_SPEC = re.compile(r"\.(?:\d+|\{\})[eEfFgGn%]?$")
#: A precision in a string that is a format: printf ``%.2f``, str.format / d3 ``{:.3f}``, ``%{y:.3f}``.
_IN_STRING = re.compile(r"%[-+ #0]*\d*\.\d+[eEfFgG]|\{[^{}]*:[^{}]*\.\d+[eEfFgGn%]?\}")


def _spec_text(spec: ast.JoinedStr) -> str:
    return "".join(str(v.value) if isinstance(v, ast.Constant) else "{}" for v in spec.values)


class _Formats(ast.NodeVisitor):
    """(line, enclosing function, what) of every float format with a precision in a module."""

    def __init__(self) -> None:
        self.found: list[tuple[int, str, str]] = []
        self._functions: list[str] = []
        self._skip: set[int] = set()  # constants inside a format spec, docstrings

    def _add(self, node: ast.AST, what: str) -> None:
        self.found.append((getattr(node, "lineno", 0), self._functions[-1] if self._functions else "", what))

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._functions.append(node.name)
        self.generic_visit(node)
        self._functions.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant):  # a docstring or a bare string
            self._skip.add(id(node.value))
        self.generic_visit(node)

    def visit_FormattedValue(self, node: ast.FormattedValue) -> None:
        spec = node.format_spec
        if isinstance(spec, ast.JoinedStr):
            for inner in ast.walk(spec):
                self._skip.add(id(inner))
            # a conversion (!r, !s, !a) makes a string: its precision cuts text
            if node.conversion == -1 and _SPEC.search(_spec_text(spec)):
                self._add(node, f"f-string :{_spec_text(spec)}")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if (isinstance(node.func, ast.Name) and node.func.id == "format" and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
                and _SPEC.search(node.args[1].value)):
            self._skip.add(id(node.args[1]))
            self._add(node, f"format(…, {node.args[1].value!r})")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if id(node) not in self._skip and isinstance(node.value, str) and _IN_STRING.search(node.value):
            self._add(node, f"format string {node.value[:40]!r}")


def formats_in(source: str) -> list[tuple[int, str, str]]:
    """Every float format with a precision in Python source: (line, function, what)."""
    visitor = _Formats()
    visitor.visit(ast.parse(source))
    return sorted(visitor.found)


def hand_formats() -> dict[str, list[tuple[int, str, str]]]:
    """Module → its hand-written float formats, outside the registry and :data:`NOT_FOR_PEOPLE`."""
    out: dict[str, list[tuple[int, str, str]]] = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == REGISTRY:
                continue
            found = [f for f in formats_in(path.read_text(encoding="utf-8")) if (rel, f[1]) not in NOT_FOR_PEOPLE]
            if found:
                out[rel] = found
    return out


def test_the_quantities_of_sentences() -> None:
    from subsetsel_core.text.rounding import d3, printf, text

    assert text(0.1234, "percent") == "12.3%" and text(0.9, "percent") == "90.0%" and d3("percent") == ".1%"
    with pytest.raises(ValueError, match="percentage"):
        printf("percent")
    assert [text(v, "seconds") for v in (0.843, 1.0, 12.34, 140.2)] == ["0.84", "1.0", "12", "140"]
    assert text(12.345, "megabytes") == "12.3" and text(3.0, "count") == "3" and text(0.5, "descriptor") == "0.5"
    assert text(5.0, "descriptor") == "5" and text(1234.56, "descriptor") == "1235" and text(0.5, "score") == "0.5000"
    assert text(float("nan"), "seconds") == "—" and text(float("inf"), "percent") == "—"
    assert text(0.0, "cost", grouped=True) == "0" and text(1234.5678, "cost", grouped=True) == "1,235"
    assert text(2.5e7, "cost", grouped=True) == "2.500e+07" and text(12345.6, "agreement", grouped=True) == "12,345.600"


def test_the_source_check_finds_each_kind_of_format() -> None:
    src = '''
def shown(x, d):
    """Docstrings may mention f"{x:.2f}"."""
    a = f"r = {x:.2f}, {x:+.3g}, {x:.1%}, {x:,.0f}, {x:.{d}f}"
    b = format(x, ".3f")
    c = "%.2f" % x
    e = "{:.4g}".format(x)
    h = f"mean %{{y:.3f}}"
    return a, b, c, e, h


def not_shown(x, name, n):
    return f"{name!r:.60} {n:d} {x:>8} {x} {n:03d} %{{x}}"
'''
    found = formats_in(src)
    assert {f[1] for f in found} == {"shown"}
    assert len(found) == 9, found


def test_every_shown_number_goes_through_the_registry() -> None:
    formats = hand_formats()
    found = {path: len(f) for path, f in formats.items()}
    unexpected = {p: formats[p] for p, n in found.items() if n > TO_ROUTE.get(p, 0)}
    assert not unexpected, ("numbers formatted by hand; write them with subsetsel_core.text.rounding.text "
                            f"(a quantity of QUANTITIES), or a markup helper of NOT_FOR_PEOPLE: {unexpected}")
    fewer = {p: found.get(p, 0) for p, n in TO_ROUTE.items() if found.get(p, 0) < n}
    assert not fewer, f"lower (or remove) these TO_ROUTE counts, now smaller: {fewer}"


def test_the_markup_helpers_exist() -> None:
    """Each NOT_FOR_PEOPLE entry names a function that still formats (the list does not go stale)."""
    for (path, function) in NOT_FOR_PEOPLE:
        found = formats_in((ROOT / path).read_text(encoding="utf-8"))
        assert any(f[1] == function for f in found), (path, function)


# --------------------------------------------------------------------------- what is shown

#: A float written raw: six or more digits after the point, or Python's nan / inf shown as a number.
RAW_FLOAT = re.compile(r"\d\.\d{6,}|(?<![\w.])[-+]?(?:nan|inf)(?![\w(])")


def raw_floats(texts: list[str]) -> list[str]:
    """The texts that show a raw float, each cut around its first one."""
    out = []
    for t in texts:
        m = RAW_FLOAT.search(t)
        if m:
            out.append(t[max(0, m.start() - 60): m.end() + 20])
    return out


def test_raw_floats_are_recognised() -> None:
    assert raw_floats(["r = 0.1234567", "gain nan", "p = inf", "-inf", "x 1.5e-07"]) == \
        ["r = 0.1234567", "gain nan", "p = inf", "-inf"]
    assert raw_floats(["r = 0.123", "information", "NaN cells are dropped", "infinite", "finance", "12.5%",
                       "1,234,567.5", "rgb(1, 2, 3)"]) == []


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _proto_strings(message: Any) -> Iterator[str]:
    """The string fields of a Streamlit element's message (labels, bodies, help, options), recursively;
    a plotly chart's spec as the strings of its figure."""
    for field, value in message.ListFields():
        if field.name == "id":
            continue
        if field.name == "spec" and isinstance(value, str):
            yield from _strings(json.loads(value))
            continue
        repeated = not isinstance(value, str | bytes) and not hasattr(value, "ListFields") and hasattr(value, "__len__")
        for item in (value if repeated else [value]):
            if isinstance(item, str):
                yield item
            elif hasattr(item, "ListFields"):
                yield from _proto_strings(item)


def visible_texts(at: Any, as_read: frozenset[str] = frozenset()) -> list[str]:
    """Every text of the page: element messages' strings, and the text cells and headers of its tables
    (but for cells in ``as_read``: the user's own files, previewed as they were read)."""
    import pandas as pd

    texts: list[str] = []

    def walk(node: Any) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None and hasattr(proto, "ListFields"):
            texts.extend(_proto_strings(proto))
        if getattr(node, "type", None) in ("dataframe", "table"):
            value = node.value
            if isinstance(value, pd.DataFrame):
                texts.extend(str(c) for c in value.columns)
                for c in value.columns:
                    if not pd.api.types.is_numeric_dtype(value[c]):
                        texts.extend(str(v) for v in value[c] if isinstance(v, str) and v not in as_read)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at.main)
    walk(at.sidebar)
    return texts


def _page_with_raw_floats() -> None:
    import pandas as pd
    import plotly.graph_objects as go
    import streamlit as st

    st.markdown("in a sentence 0.1234567")
    with st.expander("folded"):
        st.metric("card", "1.0", delta="2", help="in a help nan")
    st.dataframe(pd.DataFrame({"number": [0.1234567], "text": ["in a cell 0.7654321"]}))
    st.plotly_chart(go.Figure(go.Scatter(x=[1], y=[2], name="in a legend 3.1415926")))
    st.sidebar.caption("in the sidebar -inf")


def test_the_page_walk_reaches_every_kind_of_text() -> None:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_page_with_raw_floats, default_timeout=60)
    at.run()
    bad = raw_floats(visible_texts(at))
    assert {b.split(" 0.")[0].split(" 3.")[0].split(" nan")[0].split(" -inf")[0] for b in bad} == {
        "in a sentence", "in a help", "in a cell", "in a legend", "in the sidebar"}, bad


@pytest.mark.slow
def test_no_page_shows_a_raw_float() -> None:
    import apphelpers as H

    at = H.new_app()
    H.load_sample(at, "tsc_bakeoff")
    tables = at.session_state["data"].tables.values()  # the descriptor files, previewed on the Benchmark page
    as_read = frozenset(v for t in tables for v in t.to_numpy().ravel().tolist() if isinstance(v, str))
    shown: dict[str, list[str]] = {}
    for page in H.PAGES:
        H.goto(at, page)
        assert not H.errors(at), (page, H.errors(at))
        shown[page] = visible_texts(at, as_read)
    H.goto(at, "select")
    at.radio(key="sel_mode").set_value("a total budget")  # costs, the budget's share, the budget profile
    at.run()
    assert not H.errors(at)
    shown["select, under a budget"] = visible_texts(at, as_read)
    H.goto(at, "evaluate")
    at.number_input(key="ev_trials").set_value(4)
    at.multiselect(key="ev_strategies").set_value(["random", "fafi-cosine"])
    at.button[0].click()  # the form's "Run evaluation"
    at.run()
    H.wait_for_run(at)
    assert not H.errors(at)
    shown["evaluate, after a run"] = visible_texts(at, as_read)
    H.goto(at, "report")
    shown["report, after a run"] = visible_texts(at, as_read)
    assert all(len(t) > 20 for t in shown.values())  # the walk reaches the pages' texts
    bad = {page: raw_floats(texts) for page, texts in shown.items()}
    assert not any(bad.values()), {p: b for p, b in bad.items() if b}


def _report_texts(page: str) -> list[str]:
    """The report's visible text (scripts and styles left out) and the strings of its plotly figures."""
    import html

    texts: list[str] = []
    # each figure's data is a strict-JSON script block, drawn by JSON.parse + Plotly.newPlot
    for m in re.finditer(r'<script type="application/json" id="[^"]*-data">(.*?)</script>', page, flags=re.S):
        figure = json.loads(m.group(1))
        texts.extend(_strings([figure["data"], figure["layout"]]))
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    texts.append(html.unescape(re.sub(r"<[^>]+>", " ", body)))
    return texts


@pytest.mark.slow
def test_the_html_report_shows_no_raw_float(tmp_path: Path) -> None:
    from subsetsel_core.cli.main import main

    cfg = tmp_path / "run.toml"
    cfg.write_text('seed = 1\n[evaluate]\nstrategies = ["random", "kmeans", "fafi-euclidean"]\ntrials = 5\n'
                   'k_max = 8\npermutations = 19\n', encoding="utf-8")
    out = tmp_path / "out"
    assert main(["report", "--benchmark", str(ROOT / "sample_data" / "tsc_bakeoff"), "--config", str(cfg),
                 "--out", str(out), "--no-images"]) == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    texts = _report_texts(page)
    assert len(texts) > 3  # the figures were found
    assert not raw_floats(texts), raw_floats(texts)
