"""The Report page's content: what was chosen and what the evaluation found, as figures and text."""

from __future__ import annotations

import hashlib
import io
import time
import zipfile
from dataclasses import dataclass, field
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from subsetsel_app import cache, session, widgets
from subsetsel_app.active_data import ActiveData
from subsetsel_app.provenance import report_provenance
from subsetsel_app.state import K
from subsetsel_app.views import evaluate, outputs, select, theory
from subsetsel_core import __version__
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.critical_difference import TESTS, CriticalDifference
from subsetsel_core.evaluation.permutation import PermutationTest
from subsetsel_core.evaluation.result import BASELINE, Entry, EvaluationResult
from subsetsel_core.evaluation.stability import Stability
from subsetsel_core.evaluation.tables import auc_table
from subsetsel_core.evaluation.verdict import (
    NOT_TESTED,
    Verdict,
    cd_caption,
    favoured_entry,
    gain_note,
    settings_label,
)
from subsetsel_core.ranks.metrics import HEADLINE, METRICS
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.representations.recipe import RepresentationRecipe
from subsetsel_core.selection.subsets import Selection
from subsetsel_core.text import strict_json
from subsetsel_core.text.rounding import text
from subsetsel_core.viz import curves, maps, rankings, style
from subsetsel_core.viz.report import Report, Section, figure_images

#: The agreement metric quoted in the report's headline numbers.
HEADLINE_METRIC = HEADLINE


@dataclass
class Content:
    """Everything a report shows (also drawn on the presentation view)."""

    data: ActiveData
    recipe: RepresentationRecipe | None
    rep: Representation | None
    selection: Selection | None
    selection_error: str | None
    result: EvaluationResult | None
    metric: str
    figures: dict[str, go.Figure] = field(default_factory=dict)
    map_method: str = ""
    verdict: Verdict | None = None
    permutation: PermutationTest | None = None
    stability: Stability | None = None
    favoured: Entry | None = None
    mismatch: str | None = None
    critical_difference: CriticalDifference | None = None

    @property
    def used_recipe(self) -> RepresentationRecipe | None:
        """The recipe the selection used (None when it had no representation)."""
        return self.recipe if self.rep is not None else None


def collect(data: ActiveData) -> Content:
    """Gather the session's current selection, map and evaluation."""
    rec, rep, _ = session.current_representation(data)
    seed = session.seed()
    strategy = st.session_state[K.SEL_STRATEGY] if rep is not None else BASELINE
    k = int(min(max(1, int(st.session_state[K.SEL_K])), data.benchmark.n_datasets))
    sel: Selection | None = None
    err: str | None = None
    try:
        sel = cache.selection(data, rec if rep is not None else None, rep, strategy, k, seed,
                              tuple(st.session_state[K.SEL_INCLUDE]), tuple(st.session_state[K.SEL_EXCLUDE]))
    except InputError as exc:
        err = str(exc)
    result = evaluate.current_result(data)
    metric = st.session_state.get(K.EV_METRIC) or HEADLINE_METRIC
    widgets.ensure_map_state(data)
    c = Content(data, rec, rep, sel, err, result, metric)
    c.figures["leaderboard"] = rankings.leaderboard_figure(cache.leaderboard(data), top=widgets.TOP_MODELS,
                                                           title=f"Leaderboard on the full benchmark (top "
                                                                 f"{widgets.TOP_MODELS})")
    if rep is not None and rec is not None:
        proj = widgets.project(data, rec, rep)
        c.map_method = proj.method
        c.figures["map"] = maps.map_figure(
            proj.coords, data.benchmark.datasets, hover=cache.hover_frame(data, rec),
            color=cache.color_values(data, st.session_state.get(K.MAP_COLOR)),
            selected=sel.indices if sel is not None else (), selected_color=style.strategy_color(strategy),
            method=proj.method, title=f"Datasets by {rec.label} ({proj.method})" + (
                f": {k} chosen by {strategy}" if sel is not None else ""),
        )
    c.stability = cache.stability(data, seed)
    if result is not None and result.trials_done > 0:
        perm_job = evaluate.permutation_job()
        running = perm_job is not None and perm_job.running
        c.permutation = perm_job.result if perm_job is not None and evaluate.current_result(data) is not None else None
        done = c.permutation if c.permutation is not None and c.permutation.complete else None
        c.figures["curves"] = evaluate.curves_for(result, metric, done, c.stability, all_bands=False)
        c.figures["auc"] = curves.auc_figure(result.to_frame(), metric, title="Normalised AUC with 95% intervals")
        if len(result.entries) >= 2 and result.trials_done >= 2:
            test = st.session_state.get(outputs.CD_TEST) or TESTS[0]
            c.critical_difference, c.figures["critical_difference"] = outputs.diagram(result, metric, str(test))
        c.verdict = evaluate.verdict(result, metric, c.permutation, running=running)
        key = favoured_entry(result, c.permutation, metric)
        c.favoured = next((e for e in result.entries if e.key == key), None)
        c.mismatch = _mismatch(c, strategy, k)
    return c


def _mismatch(c: Content, strategy: str, k: int) -> str | None:
    """"The subset shown is X at k; the evaluation favours Y", or None when the subset is the favoured one's."""
    fav = c.favoured
    if fav is None or c.selection is None:
        return None
    rep_now = c.recipe.label if c.recipe is not None and c.rep is not None else None
    same_rep = fav.representation is None or fav.representation == rep_now
    if fav.strategy == strategy and same_rep:
        return None
    on = f" on {fav.representation}" if fav.representation else ""
    now = f" on {rep_now}" if rep_now and strategy != BASELINE else ""
    why = "by the permutation test" if c.verdict is not None and c.verdict.helps else "by its gain over random (no " \
          "strategy is shown to help)"
    return (f"The subset shown is {strategy}{now} at k = {k} (the Select page's setting); the evaluation favours "
            f"{fav.strategy}{on} ({why}).")


def use_favoured(data: ActiveData, strategy: str, representation: str | None) -> None:
    """Button callback: select with the favoured strategy (and its representation)."""
    st.session_state[K.SEL_STRATEGY] = strategy
    rec = session.offered_recipes(data).get(representation) if representation else None
    if rec is not None:
        session.recipe_to_state(rec, st.session_state)


def facts(c: Content) -> list[tuple[str, str]]:
    """Headline numbers of the report."""
    b = c.data.benchmark
    out = [("Datasets", str(b.n_datasets)), ("Models", str(b.n_models)), ("Folds", str(b.n_folds))]
    if c.selection is not None:
        out.append(("Subset size k", str(c.selection.k)))
        out.append(("Strategy", c.selection.strategy))
        out.append((f"Subset {METRICS[HEADLINE_METRIC].label}", text(c.selection.agreement[HEADLINE_METRIC], "agreement")))
    return out


def build_report(c: Content, title: str) -> Report:
    """The report document of the current content."""
    b = c.data.benchmark
    r = Report(
        title=title or f"Ranking-preserving subset — {c.data.title}",
        subtitle=f"{c.data.title}: {b.n_datasets} datasets × {b.n_models} models × {b.n_folds} fold(s), "
                 f"{'higher' if b.higher_is_better else 'lower'} is better.",
        facts=facts(c),
        footer=f"subsetsel {__version__} · generated {time.strftime('%Y-%m-%d %H:%M')} · selection seed "
               f"{session.seed()}" + (f" · evaluation: {settings_label(c.result)}" if c.result is not None else ""),
    )
    if changed := c.data.report.changes():  # what the reading changed against the files, as on every page
        r.sections.append(Section("How the benchmark differs from its files", "\n\n".join(changed)))
    if c.verdict is not None:
        assert c.result is not None
        r.sections.append(Section(f"Verdict ({settings_label(c.result)})", c.verdict.text, highlight=True,
                                  positive=c.verdict.helps))
    if c.mismatch:
        r.sections.append(Section("Which subset", c.mismatch + " The subset below is the one you selected; the "
                                  "evaluation's numbers describe the strategies, not this particular subset."))
    if c.selection is not None:
        sel = c.selection
        rep_txt = f" from the representation {sel.representation}" if sel.representation != "none" else ""
        agree = ", ".join(f"{METRICS[m].label} {text(sel.agreement[m], 'agreement')}" for m in METRICS)
        r.sections.append(Section(
            f"The chosen subset (k = {sel.k}, {sel.strategy})",
            f"{sel.strategy} chose these {sel.k} datasets{rep_txt} without looking at the scores. "
            f"Their model ranking against the full benchmark's: {agree}.",
            figure=c.figures.get("map"),
            table=select.subset_table(c.data, c.used_recipe, sel),
            note=f"Map: {c.map_method}. Numbers on the map give the selection order.",
        ))
    elif c.selection_error:
        r.sections.append(Section("The chosen subset", f"No subset: {c.selection_error}"))
    if c.result is not None and "curves" in c.figures:
        res = c.result
        r.sections.append(Section(
            "Rank agreement versus k",
            f"{settings_label(res)}; each trial draws ⌊α·n⌋ = {res.info.get('pool_datasets')} datasets "
            f"and {res.info.get('pool_models')} models; every strategy sees the same pools. Lines: mean; bands: "
            "2.5–97.5 % of trials (random's and the favoured strategy's); grey: the full benchmark's own "
            f"stability ({c.stability.describe() if c.stability else ''}).",
            figure=c.figures["curves"],
        ))
        r.sections.append(Section(
            "Area under the curve and significance against random",
            figure=c.figures["auc"],
            table=auc_table(res, c.metric, c.permutation),
            note=("Verdict: " + (c.permutation.describe() if c.permutation is not None else NOT_TESTED)
                  + f". {gain_note(res, c.permutation)}. p vs random on these pools: one-sided Wilcoxon signed-rank "
                  "test on paired per-trial AUCs (Holm over the strategies); conditional on the representation, no "
                  "verdict."),
        ))
        if c.critical_difference is not None:
            r.sections.append(Section("Which strategies are told apart",
                                      c.critical_difference.describe() + " " + cd_caption(c.permutation),
                                      figure=c.figures["critical_difference"]))
        bound = theory.report_section(c.data, res)
        if bound is not None:
            r.sections.append(bound)
    r.sections.append(Section("Leaderboard of the full benchmark", c.stability.summary() if c.stability else "",
                              figure=c.figures["leaderboard"],
                              table=_board(c),
                              note="rank interval: 2.5–97.5 % of the model's position over "
                                   f"{c.stability.describe() if c.stability else 'resamples'}; models sharing a "
                                   "tie group are not told apart with 95 % confidence."))
    if c.data.citation:
        r.sections.append(Section("Data", c.data.citation))
    r.provenance = provenance(c, title)
    return r


def provenance(c: Content, title: str) -> dict[str, Any]:
    """What made the report: the selection's and the evaluation run's settings, the inputs' SHA-256."""
    run = evaluate.current_run()
    res = c.result
    return report_provenance(
        c.data, session.seed(), selection=c.selection, recipe=c.used_recipe,
        config=res.config if res is not None else None,
        representations=tuple(run.representations) if run is not None and res is not None else (),
        permutations=run.permutations if run is not None and res is not None else 0,
        permutation_trials=run.permutation_trials if run is not None and res is not None else 0, title=title)


def _board(c: Content) -> Any:
    board = cache.leaderboard(c.data)
    if c.stability is not None:
        board = c.stability.annotate(board)
        board["rank interval"] = [f"{lo:g}–{hi:g}" if lo != hi else f"{lo:g}"
                                  for lo, hi in zip(board["rank_lo"], board["rank_hi"], strict=True)]
        board = board.drop(columns=["rank_lo", "rank_hi"])
    return board.head(widgets.TOP_MODELS)


def images_zip(imgs: dict[str, dict[str, bytes]]) -> bytes:
    """All images in one ZIP archive."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, by_fmt in imgs.items():
            for fmt, blob in by_fmt.items():
                z.writestr(f"{name}.{fmt}", blob)
    return buf.getvalue()


def figure_signature(c: Content) -> str:
    """A digest of the figures' content (images are re-rendered only when it changes)."""
    h = hashlib.sha1()
    for name, fig in c.figures.items():
        h.update(name.encode())
        h.update(fig.to_json().encode())
    return h.hexdigest()


def render_images(c: Content, signature: str) -> None:
    """Render every figure to PNG and SVG (kaleido; several seconds) and keep them in the session
    (errors kept as text)."""
    try:
        imgs = with_provenance(figure_images(c.figures, ("png", "svg")),
                               provenance(c, str(st.session_state.get(K.RP_TITLE) or "")))
        st.session_state[K.RP_IMAGES] = {"signature": signature, "images": imgs, "error": None}
    except RuntimeError as exc:
        st.session_state[K.RP_IMAGES] = {"signature": signature, "images": None, "error": str(exc)}


def with_provenance(imgs: dict[str, dict[str, bytes]], record: dict[str, Any]) -> dict[str, dict[str, bytes]]:
    """The images with the provenance inside (a PNG text chunk, an SVG ``<metadata>``)."""
    from subsetsel_core.outputs.provenance import PNG_KEY, png_with_text, svg_with_metadata

    meta = strict_json.dumps(record)
    return {name: {fmt: png_with_text(blob, PNG_KEY, meta) if fmt == "png"
                   else svg_with_metadata(blob, meta) if fmt == "svg" else blob for fmt, blob in by_fmt.items()}
            for name, by_fmt in imgs.items()}


def stored_images(signature: str) -> tuple[dict[str, dict[str, bytes]] | None, str | None]:
    """The rendered images if they match the current figures, and any error message."""
    got = st.session_state.get(K.RP_IMAGES)
    if not got or got.get("signature") != signature:
        return None, None
    return got.get("images"), got.get("error")
