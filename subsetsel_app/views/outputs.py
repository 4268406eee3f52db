"""Outputs for papers, meetings and reproduction on the Evaluate page: the downloads (JSON, CSV,
LaTeX, the run's config file) with their provenance, and the critical-difference diagram."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

import streamlit as st

from subsetsel_app import jobs, session, state, widgets
from subsetsel_app.active_data import ActiveData
from subsetsel_app.provenance import evaluation_provenance
from subsetsel_app.state import K
from subsetsel_core.evaluation.critical_difference import (
    TESTS,
    CriticalDifference,
    critical_difference,
)
from subsetsel_core.evaluation.permutation import PermutationTest
from subsetsel_core.evaluation.result import BASELINE, EvaluationResult
from subsetsel_core.evaluation.stability import Stability
from subsetsel_core.evaluation.summary import evaluation_json
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.outputs.latex import auc_latex
from subsetsel_core.outputs.run_config import RunConfig, config_toml
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.text import strict_json
from subsetsel_core.text.rounding import round_frame
from subsetsel_core.text.safe_csv import csv_text
from subsetsel_core.viz.critical_difference import cd_figure

#: Session key of the critical-difference test chosen on the Evaluate page.
CD_TEST = K.EV_CD_TEST
_CD_LABELS = {"wilcoxon-holm": "Wilcoxon–Holm", "nemenyi": "Nemenyi"}


def run_provenance(data: ActiveData, res: EvaluationResult, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The provenance of the session's evaluation run (its request's settings, not the widgets')."""
    job = jobs.get(st.session_state.get(K.EV_RUN))
    req = job.request if job is not None else None
    reps = tuple(req.representations) if req is not None else ()
    return evaluation_provenance(data, res.config, reps, permutations=req.permutations if req else 0,
                                 permutation_trials=req.permutation_trials if req else 0, extra=extra)


def settings_config(data: ActiveData) -> RunConfig:
    """The dashboard's current settings as the config file of ``subsetsel report``."""
    ss = st.session_state
    offered = session.offered_recipes(data)
    reps = ["+".join(offered[n].tables) for n in ss.get(K.EV_REPS) or () if n in offered]
    lo, hi = ss[K.EV_KRANGE]
    permute = bool(ss.get(K.EV_PERMUTE))
    rec, rep, _ = session.current_representation(data)
    reading = replayed_reading(data)
    return RunConfig(
        title=str(ss.get(K.RP_TITLE) or ""), seed=session.seed(),
        missing=reading.missing if reading is not None else data.missing,
        strategies=tuple(dict.fromkeys([BASELINE, *(ss.get(K.EV_STRATEGIES) or ())])),
        representations=tuple(dict.fromkeys(reps)), trials=int(ss[K.EV_TRIALS]), alpha=float(ss[K.EV_ALPHA]),
        beta=float(ss[K.EV_BETA]), k_min=int(lo), k_max=int(hi),
        permutations=int(ss[K.EV_PERMUTATIONS]) if permute else 0,
        permutation_trials=min(int(ss[K.EV_PERM_TRIALS]), int(ss[K.EV_TRIALS])) if permute else 0,
        select_strategy=str(ss.get(K.SEL_STRATEGY) or "") if rep is not None else BASELINE,
        select_representation="+".join(rec.tables) if rec is not None and rep is not None else "",
        select_k=int(ss.get(K.SEL_K) or state.default(K.SEL_K)), metric=str(ss.get(K.EV_METRIC) or state.default(K.EV_METRIC)),
        critical_difference=str(ss.get(CD_TEST) or TESTS[0]),
        reading=reading,
    )


def replayed_reading(data: ActiveData) -> ScoreFormat | None:
    """How ``subsetsel report --scores FILE`` must read the score table to give this benchmark: the
    upload's reading, whole (None for a benchmark folder, whose manifest says it, and a results folder)."""
    return None if data.manifest is not None else data.reading


def config_file(data: ActiveData) -> bytes:
    """The text of ``run.toml`` for the current settings (with where they came from)."""
    cfg = settings_config(data)
    custom = [r for r in (st.session_state.get(K.EV_REPS) or ()) if r not in data.tables]
    if cfg.reading is not None:
        files = list(data.inputs or {}) or ["FILE"]
        command = shlex.join(["subsetsel", "report", "--scores", files[0],
                              *(x for f in files[1:] for x in ("--features", f)),
                              "--config", f"{data.name}_run.toml", "--out", "DIR"])
    else:
        command = f"subsetsel report --benchmark FOLDER --config {data.name}_run.toml --out DIR"
    note = {"made by": "the subsetsel dashboard", "benchmark": data.name, "run with": command}
    if custom:
        note["note"] = ("representations configured on the Representation page are written as their tables "
                        "with the tables' default columns")
    return config_toml(cfg, comments=note).encode("utf-8")


def config_button(data: ActiveData, *, key: str) -> None:
    """A download button for the current settings as ``subsetsel report``'s config file."""
    # made now: a download's callable runs outside the script, where the session's widget keys are not at hand
    st.download_button("Settings as run.toml", config_file(data), file_name=f"{data.name}_run.toml",
                       mime="application/toml", icon=":material/settings:", key=key, on_click="ignore",
                       help="The current settings as the config file of `subsetsel report --config run.toml`, "
                            "which runs them again from the command line and writes the report and every file.")


def downloads(res: EvaluationResult, pt: PermutationTest | None, stab: Stability | None) -> None:
    """The Evaluate page's downloads: results (JSON, full precision), AUC and curves (CSV, rounded),
    the AUC table as LaTeX, and the settings as a config file; each records its provenance."""
    data = session.active()
    name = res.info.get("benchmark", "benchmark")
    prov = run_provenance(data, res)  # now: the files are made outside the script run, when clicked

    def results() -> bytes:
        out = evaluation_json(res, pt, stab, provenance=prov)
        return strict_json.dumps(out, indent=2, default=float, ensure_ascii=True).encode("utf-8")

    def table(frame: Any) -> bytes:
        return csv_text(round_frame(frame), comments=prov.items()).encode("utf-8")

    def latex() -> bytes:
        return auc_latex(res, provenance=prov).encode("utf-8")

    st.download_button("Results (JSON)", results, file_name=f"evaluation_{name}.json", mime="application/json",
                       icon=":material/download:", key="dl_eval_json", on_click="ignore")
    st.download_button("AUC table (CSV)", lambda: table(res.to_frame()), mime="text/csv", file_name=f"auc_{name}.csv",
                       icon=":material/download:", key="dl_eval_auc", on_click="ignore")
    st.download_button("Curves (CSV)", lambda: table(res.curves_frame()), mime="text/csv",
                       file_name=f"curves_{name}.csv", icon=":material/download:", key="dl_eval_curves",
                       on_click="ignore")
    st.download_button("AUC table (LaTeX)", latex, mime="application/x-tex", file_name=f"auc_{name}.tex",
                       icon=":material/functions:", key="dl_eval_latex", on_click="ignore",
                       help="booktabs table with 95 % intervals, the best mean per metric in bold (ties all bold); "
                            "`\\input` it (needs `\\usepackage{booktabs}`).")
    config_button(data, key="dl_eval_config")


def diagram(res: EvaluationResult, metric: str, test: str) -> tuple[CriticalDifference, Any]:
    """The critical-difference numbers and figure of an evaluation on one metric."""
    cd = critical_difference(res, metric, test=test)
    return cd, cd_figure(cd, title=f"Critical difference — mean rank of the {METRICS[metric].label} AUC "
                                   f"over {res.trials_done} trials")


def cd_section(res: EvaluationResult, metric: str) -> None:
    """The critical-difference diagram of the strategies, with the choice of post-hoc test."""
    if len(res.entries) < 2 or res.trials_done < 2:
        return
    st.markdown("#### Which strategies are told apart — critical-difference diagram")
    if st.session_state.get(CD_TEST) not in TESTS:
        st.session_state[CD_TEST] = TESTS[0]
    test = st.segmented_control("Post-hoc test", list(TESTS), key=CD_TEST, format_func=lambda t: _CD_LABELS[t],
                                help="Wilcoxon–Holm: pairwise Wilcoxon signed-rank tests on the per-trial AUCs, "
                                     "Holm-corrected (as aeon draws them). Nemenyi: Demšar's critical difference "
                                     "of mean ranks.") or TESTS[0]
    cd, fig = diagram(res, metric, str(test))
    widgets.chart(fig, key="ev_cd")
    st.caption(widgets.md_escape(cd.describe()) + " Each trial's pool is a block; the ranks compare the strategies "
               "on the same pools, so they say which are told apart, not whether one helps (the permutation test "
               "says that).")
