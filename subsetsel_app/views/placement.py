"""Place a new model (Select page): its pasted or uploaded scores on the chosen datasets, checked
against the benchmark, and where :func:`subsetsel_core.selection.placement.place_model` puts it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from subsetsel_app import cache, state, widgets
from subsetsel_app.active_data import ActiveData
from subsetsel_app.state import K
from subsetsel_core.errors import InputError
from subsetsel_core.io.names import describe_mismatch, normalise_name, short
from subsetsel_core.io.numeric_cells import parse_numbers
from subsetsel_core.io.tables import read_table
from subsetsel_core.outputs.export import template_csv
from subsetsel_core.representations.recipe import RepresentationRecipe
from subsetsel_core.selection.costs import BudgetSelection
from subsetsel_core.selection.placement import read_model_scores
from subsetsel_core.selection.subsets import Selection
from subsetsel_core.text import rounding
from subsetsel_core.viz import rankings

_HEADER_WORDS = {"dataset", "datasets", "name", "task", "data"}


@dataclass(frozen=True)
class ParsedScores:
    """A new model's scores as read from pasted text or a file.

    Attributes
    ----------
    rows : tuple of (dataset, fold or None, score)
    problems : tuple of str
        Errors that prevent a placement (bad numbers, unknown or missing datasets, …).
    notes : tuple of str
        Things worth saying that do not prevent it (extra datasets ignored, …).
    source : str
        The uploaded file's name ("" for pasted text).
    """

    rows: tuple[tuple[str, str | None, float], ...]
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    source: str = ""


def _score(text: str) -> float | None:
    """A pasted score as :func:`subsetsel_core.io.numeric_cells.parse_numbers` reads a cell (None: not a finite number)."""
    numbers, _, _ = parse_numbers(pd.Series([text.replace("\u2212", "-")], dtype=object))
    v = float(numbers.iloc[0])
    return v if np.isfinite(v) else None


def parse_pasted(text: str) -> ParsedScores:
    """Read ``dataset,score`` or ``dataset<TAB>score`` lines (a header line is allowed).

    The score is the last field (a dataset name may contain commas); ``;`` (with a decimal
    comma) and a last space also separate; blank lines and lines starting with ``#`` are
    skipped.
    """
    rows: list[tuple[str, str | None, float]] = []
    problems: list[str] = []
    bad_lines: list[str] = []
    no_sep: list[int] = []
    for ln, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        seps = ["\t"] if "\t" in line else [s for s in (";", ",") if s in line] or ([" "] if " " in line else [])
        if not seps:
            no_sep.append(ln)
            continue
        for sep in seps:  # the first separator whose last field is a number ("X;0,5" is X and 0.5)
            name, _, value = line.rpartition(sep)
            v = _score(value.strip().strip('"'))
            if v is not None:
                break
        name = name.strip().strip('"').strip()
        if v is None:
            if not rows and not bad_lines and normalise_name(name) in _HEADER_WORDS:
                continue  # a header line
            bad_lines.append(f"line {ln} ('{short(value.strip(), 20)}' for '{short(name, 40)}')")
            continue
        if not name:
            bad_lines.append(f"line {ln} (no dataset name)")
            continue
        rows.append((name, None, v))
    if no_sep:
        which = (f"line {no_sep[0]} has" if len(no_sep) == 1 else
                 f"lines {', '.join(map(str, no_sep[:8]))}{' …' if len(no_sep) > 8 else ''} have")
        problems.append(f"{which} no score: write one dataset and its score per line, separated by a comma or a tab.")
    if bad_lines:
        problems.append(f"not a number: {'; '.join(bad_lines[:6])}{' …' if len(bad_lines) > 6 else ''}.")
    return ParsedScores(tuple(rows), tuple(problems))


def parse_upload(name: str, content: bytes) -> ParsedScores:
    """Read an uploaded CSV of a new model's scores (``dataset, score`` columns; a ``fold`` column is used).

    A two-column file with other headers is read as dataset, score. The file is read as every
    table is (:func:`~subsetsel_core.io.tables.read_table`): the template's provenance block
    (``# key: value`` lines) is no row.
    """
    label = short(name, 60)
    try:
        table = read_table(content, label=label)
    except InputError as exc:
        return ParsedScores((), (str(exc),), source=name)
    cols = [str(c).strip() for c in table.columns]
    low = {c.lower(): c for c in cols}
    ds_col = low.get("dataset") or (cols[0] if len(cols) == 2 else None)
    sc_col = low.get("score") or (cols[-1] if len(cols) == 2 else None)
    if ds_col is None or sc_col is None:
        return ParsedScores((), (f"{label}: needs a 'dataset' and a 'score' column (or exactly two columns); "
                                 f"the columns are {', '.join(repr(short(c, 30)) for c in cols[:10])}.",),
                           source=name)
    try:
        df = read_model_scores(table, dataset_column=ds_col, score_column=sc_col,
                               fold_column=low.get("fold"), label=label)
    except InputError as exc:
        return ParsedScores((), (str(exc),), source=name)
    rows = tuple((str(d), None if f is None or (isinstance(f, float) and np.isnan(f)) else str(f), float(s))
                 for d, f, s in zip(df["dataset"], df["fold"] if df["fold"].notna().any() else [None] * len(df),
                                    df["score"], strict=True))
    return ParsedScores(rows, source=name)


def check_scores(parsed: ParsedScores, data: ActiveData, subset: Sequence[str]) -> ParsedScores:
    """Match the names against the benchmark and the subset; add problems and notes."""
    problems = list(parsed.problems)
    notes = list(parsed.notes)
    bench = data.benchmark
    if not parsed.rows:
        if not problems:
            problems.append("no scores given: paste one 'dataset,score' line per chosen dataset.")
        return ParsedScores(parsed.rows, tuple(problems), tuple(notes), parsed.source)
    given = [r[0] for r in parsed.rows]
    known = set(bench.datasets)
    unknown = list(dict.fromkeys(d for d in given if d not in known))
    if unknown:
        problems.append(f"{len(unknown)} name(s) are not datasets of this benchmark: "
                        f"{describe_mismatch(unknown, list(bench.datasets))}.")
    if all(r[1] is None for r in parsed.rows):
        seen: dict[str, int] = {}
        for d in given:
            seen[d] = seen.get(d, 0) + 1
        twice = [d for d, c in seen.items() if c > 1]
        if twice:
            problems.append(f"given more than once: {', '.join(repr(short(d)) for d in twice[:8])}; "
                            "give one score per dataset (or a fold column in a file).")
    have = set(given)
    lacking = [d for d in subset if d not in have]
    if lacking:
        problems.append(f"no score for {len(lacking)} of the {len(subset)} chosen datasets: "
                        f"{describe_mismatch(lacking, [d for d in dict.fromkeys(given) if d not in set(subset)])}.")
    extra = [d for d in dict.fromkeys(given) if d in known and d not in set(subset)]
    if extra:
        notes.append(f"{len(extra)} dataset(s) not in the subset are ignored: "
                     f"{', '.join(repr(short(d)) for d in extra[:8])}{' …' if len(extra) > 8 else ''}.")
    index = {d: i for i, d in enumerate(bench.datasets)}
    out_of_range = []
    for d, _, v in parsed.rows:
        if d in index and d in set(subset):
            s = bench.file_scores()[index[d]]
            lo, hi = float(np.nanmin(s)), float(np.nanmax(s))
            pad = max(hi - lo, 1e-9)
            if v < lo - pad or v > hi + pad:
                out_of_range.append(d)
    if out_of_range and len(out_of_range) >= max(1, len(subset) // 2):
        notes.append(f"{len(out_of_range)} score(s) are far outside the existing models' range on those datasets "
                     f"(e.g. '{short(out_of_range[0])}'): check the metric and its scale "
                     f"({'higher' if bench.higher_is_better else 'lower'} is better; a fraction, not a percentage?).")
    return ParsedScores(parsed.rows, tuple(problems), tuple(notes), parsed.source)


def template_bytes(data: ActiveData, subset: Sequence[str], selection: Selection | None = None,
                   recipe: RepresentationRecipe | None = None, budget: BudgetSelection | None = None) -> bytes:
    """The template CSV of the chosen datasets; with ``selection``, what made the subset in its provenance block
    (:func:`subsetsel_app.provenance.selection_provenance`, as in the subset CSV)."""
    from subsetsel_app.provenance import selection_provenance

    prov = None if selection is None else selection_provenance(data, selection, recipe, budget=budget)
    return template_csv(list(subset), prov).encode("utf-8")


def _parsed(data: ActiveData, subset: list[str], selection: Selection | None = None,
            recipe: RepresentationRecipe | None = None, budget: BudgetSelection | None = None) -> ParsedScores | None:
    """The scores from the uploaded file, else the pasted text (None when neither is given)."""
    nonce = int(st.session_state[K.PL_NONCE])
    up = widgets.file_uploader("… or a CSV with dataset and score columns (optional fold column)",
                               type=["csv", "tsv", "txt"], key=f"pl_upload_{nonce}")
    st.download_button("Template CSV of the chosen datasets",
                       lambda: template_bytes(data, subset, selection, recipe, budget),
                       file_name=f"scores_template_{len(subset)}.csv", mime="text/csv",
                       icon=":material/download:", key="dl_pl_template", on_click="ignore")
    if up is not None:
        return parse_upload(up.name, up.getvalue())
    if st.session_state[K.PL_TEXT].strip():
        return parse_pasted(st.session_state[K.PL_TEXT])
    return None


def place_panel(data: ActiveData, subset: list[str], seed: int, *, selection: Selection | None = None,
                recipe: RepresentationRecipe | None = None, budget: BudgetSelection | None = None) -> None:
    """Paste or upload a new model's scores on the subset; its estimated standing on the full benchmark.

    ``selection`` (with its ``recipe`` and ``budget``) is what chose the subset: the template's provenance.
    """
    b = data.benchmark
    st.markdown("#### Place a new model")
    st.caption(f"Score a new model on the {len(subset)} chosen datasets only; its position on the full benchmark "
               f"is estimated from how the {b.n_models} existing models' subset ranks relate to their full ranks "
               f"(95 % interval by bootstrap over the chosen datasets). Scores in the benchmark's metric"
               f"{' (' + widgets.md_escape(data.metric) + ')' if data.metric else ''}, "
               f"{'higher' if b.higher_is_better else 'lower'} is better.")
    left, right = st.columns([2, 3], gap="large")
    with left:
        st.text_input("Model name", key=K.PL_NAME, persist_state=state.PERSIST)
        st.text_area("Scores — one 'dataset,score' (or dataset⇥score) line per chosen dataset", key=K.PL_TEXT,
                     persist_state=state.PERSIST, height=170, placeholder="\n".join(f"{d},0.85" for d in subset[:3]))
        parsed = _parsed(data, subset, selection, recipe, budget)
    with right:
        if parsed is None:
            st.info("Paste or upload the new model's scores to see where it would rank.", icon=widgets.ICONS["info"])
            return
        if parsed.source:
            st.caption(f"Using the uploaded file {widgets.md_escape(parsed.source)} (the pasted text is ignored).")
        checked = check_scores(parsed, data, subset)
        for msg in checked.problems:
            st.error(widgets.md_escape(msg[:1].upper() + msg[1:]), icon=widgets.ICONS["error"])
        for msg in checked.notes:
            st.warning(widgets.md_escape(msg[:1].upper() + msg[1:]), icon=widgets.ICONS["warning"])
        if checked.problems:
            return
        try:
            pl = cache.placement(data, tuple(subset), checked.rows, st.session_state[K.PL_NAME], seed)
        except InputError as exc:
            st.error(widgets.md_escape(exc), icon=widgets.ICONS["error"])
            return
        lo, hi = pl.position_interval
        m = st.columns(3)
        m[0].metric("Estimated position", f"{pl.position} of {pl.n_models}",
                    help="Among the existing models and the new one, on the full benchmark (1 = best).")
        m[1].metric("95 % interval", f"{lo} – {hi}")
        mlo, mhi = pl.mean_rank_interval
        m[2].metric("Estimated mean rank", rounding.text(pl.estimated_mean_rank, "mean_rank"),
                    help=f"On the existing models' scale; 95 % interval {rounding.text(mlo, 'mean_rank')} – "
                         f"{rounding.text(mhi, 'mean_rank')}.")
        st.markdown(widgets.md_escape(pl.sentence()))
        widgets.chart(rankings.placement_figure(cache.leaderboard(data), pl.model, pl.estimated_mean_rank,
                                                pl.mean_rank_interval), key="select_placement")
