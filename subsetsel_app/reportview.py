"""The Report page's content: what was chosen and what the evaluation found, as figures and text."""

from __future__ import annotations

import io
import time
import zipfile
from dataclasses import dataclass, field

import plotly.graph_objects as go
import streamlit as st

from subsetsel_core import __version__
from subsetsel_core.descriptors import Representation
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.protocol import EvaluationResult
from subsetsel_core.metrics import METRICS
from subsetsel_core.selection import Selection
from subsetsel_core.viz import figures
from subsetsel_core.viz.report import Report, Section, build_html, figure_images

from . import analysis, evalview, model, selectview, ui
from . import data as D
from .model import ActiveData, RepConfig
from .state import K


@dataclass
class Content:
    """Everything a report shows (also drawn on the presentation view)."""

    data: ActiveData
    cfg: RepConfig | None
    rep: Representation | None
    selection: Selection | None
    selection_error: str | None
    result: EvaluationResult | None
    metric: str
    figures: dict[str, go.Figure] = field(default_factory=dict)
    map_method: str = ""
    verdict: str = ""


def collect(data: ActiveData) -> Content:
    """Gather the session's current selection, map and evaluation."""
    cfg, rep, _ = ui.current_representation(data)
    seed = int(st.session_state[K.SEED])
    strategy = st.session_state[K.SEL_STRATEGY] if rep is not None else "random"
    k = int(min(max(1, int(st.session_state[K.SEL_K])), data.benchmark.n_datasets))
    sel: Selection | None = None
    err: str | None = None
    try:
        sel = D.selection(data, cfg if rep is not None else None, rep, strategy, k, seed,
                          tuple(st.session_state[K.SEL_INCLUDE]), tuple(st.session_state[K.SEL_EXCLUDE]))
    except InputError as exc:
        err = str(exc)
    run = evalview.current_run()
    result = run.latest if run is not None and run.token == data.token else None
    metric = st.session_state.get(K.EV_METRIC) or "spearman"
    ui.ensure_map_state(data)
    c = Content(data, cfg, rep, sel, err, result, metric)
    c.figures["leaderboard"] = figures.leaderboard_figure(D.leaderboard(data), top=15,
                                                          title="Leaderboard on the full benchmark (top 15)")
    if rep is not None and cfg is not None:
        proj = D.project(data, cfg, rep, st.session_state[K.MAP_METHOD], seed)
        c.map_method = proj.method
        c.figures["map"] = figures.map_figure(
            proj.coords, data.benchmark.datasets, hover=model.hover_frame(data, cfg),
            color=model.color_values(data, st.session_state.get(K.MAP_COLOR)),
            selected=sel.indices if sel is not None else (), selected_color=figures.strategy_color(strategy),
            method=proj.method, title=f"Datasets by {cfg.name} ({proj.method})" + (
                f": {k} chosen by {strategy}" if sel is not None else ""),
        )
    if result is not None and result.trials_done > 0:
        c.figures["curves"] = figures.curves_figure(
            result.curves_frame(), metric, title=f"{METRICS[metric].label} vs k ({result.trials_done} trials)")
        c.figures["auc"] = figures.auc_figure(result.to_frame(), metric, title="Normalised AUC with 95% intervals")
        c.verdict = analysis.verdict(result, metric)
    return c


def facts(c: Content) -> list[tuple[str, str]]:
    """Headline numbers of the report."""
    b = c.data.benchmark
    out = [("Datasets", str(b.n_datasets)), ("Models", str(b.n_models)), ("Folds", str(b.n_folds))]
    if c.selection is not None:
        out.append(("Subset size k", str(c.selection.k)))
        out.append(("Strategy", c.selection.strategy))
        out.append((f"Subset {METRICS['spearman'].label}", f"{c.selection.agreement['spearman']:.3f}"))
    return out


def build_report(c: Content, title: str) -> Report:
    """The report document of the current content."""
    b = c.data.benchmark
    r = Report(
        title=title or f"Ranking-preserving subset — {c.data.title}",
        subtitle=f"{c.data.title}: {b.n_datasets} datasets × {b.n_models} models × {b.n_folds} fold(s), "
                 f"{'higher' if b.higher_is_better else 'lower'} is better.",
        facts=facts(c),
        footer=f"subsetsel {__version__} · generated {time.strftime('%Y-%m-%d %H:%M')} · seed "
               f"{int(st.session_state[K.SEED])}",
    )
    if c.verdict:
        r.sections.append(Section("Verdict", c.verdict, highlight=True))
    if c.selection is not None:
        sel = c.selection
        rep_txt = f" from the representation {sel.representation}" if sel.representation != "none" else ""
        agree = ", ".join(f"{METRICS[m].label} {sel.agreement[m]:.3f}" for m in METRICS)
        r.sections.append(Section(
            f"The chosen subset (k = {sel.k}, {sel.strategy})",
            f"{sel.strategy} chose these {sel.k} datasets{rep_txt} without looking at the scores. "
            f"Their model ranking against the full benchmark's: {agree}.",
            figure=c.figures.get("map"),
            table=selectview.subset_frame(c.data, c.cfg if c.rep is not None else None, sel),
            note=f"Map: {c.map_method}. Numbers on the map give the selection order.",
        ))
    elif c.selection_error:
        r.sections.append(Section("The chosen subset", f"No subset: {c.selection_error}"))
    if c.result is not None and "curves" in c.figures:
        res = c.result
        r.sections.append(Section(
            "Rank agreement versus k",
            f"{res.trials_done} trials; each draws ⌊α·n⌋ = {res.info.get('pool_datasets')} datasets "
            f"(α = {res.config.alpha}) and {res.info.get('pool_models')} models (β = {res.config.beta}); every "
            "strategy sees the same pools. Lines: mean; bands: 2.5–97.5 % of trials.",
            figure=c.figures["curves"],
        ))
        r.sections.append(Section(
            "Area under the curve and significance against random",
            figure=c.figures["auc"],
            table=evalview.auc_table(res, c.metric),
            note="One-sided Wilcoxon signed-rank test on paired per-trial AUCs, Holm-corrected across strategies.",
        ))
    r.sections.append(Section("Leaderboard of the full benchmark", figure=c.figures["leaderboard"],
                              table=D.leaderboard(c.data).head(15)))
    if c.data.citation:
        r.sections.append(Section("Data", c.data.citation))
    return r


def html_bytes(c: Content, title: str) -> bytes:
    """The report as a self-contained HTML file."""
    return build_html(build_report(c, title)).encode("utf-8")


def images(c: Content) -> dict[str, dict[str, bytes]]:
    """PNG and SVG of every figure (kaleido; several seconds)."""
    return figure_images(c.figures, ("png", "svg"))


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
    import hashlib

    h = hashlib.sha1()
    for name, fig in c.figures.items():
        h.update(name.encode())
        h.update(fig.to_json().encode())
    return h.hexdigest()


def render_images(c: Content, signature: str) -> None:
    """Render every figure to PNG and SVG and keep them in the session (errors kept as text)."""
    try:
        st.session_state[K.RP_IMAGES] = {"signature": signature, "images": images(c), "error": None}
    except RuntimeError as exc:
        st.session_state[K.RP_IMAGES] = {"signature": signature, "images": None, "error": str(exc)}


def stored_images(signature: str) -> tuple[dict[str, dict[str, bytes]] | None, str | None]:
    """The rendered images if they match the current figures, and any error message."""
    got = st.session_state.get(K.RP_IMAGES)
    if not got or got.get("signature") != signature:
        return None, None
    return got.get("images"), got.get("error")
