"""Session-state keys of the dashboard, declared once with their defaults.

Every page reads and writes ``st.session_state`` through the names in :class:`K`. Widgets
are created with ``key=K.…``, ``persist_state=PERSIST`` and without a ``value=``/``index=``
argument: the default comes from :data:`DEFAULTS` via :func:`init_state`, and a value
chosen on one page survives a visit to another page.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from subsetsel_core.strategies import STRATEGIES


class K:
    """Session-state keys (one place, no string literals in pages)."""

    # the active benchmark
    DATA = "data"  # ActiveData
    BENCH_DIR = "bench_dir"  # str: directory of benchmark folders
    BENCH_CHOICE = "bench_choice"  # str: folder path chosen on the Benchmark page
    FLASH = "flash"  # (level, message) shown once at the top of the next page
    # upload
    UP_LAYOUT = "up_layout"
    UP_DATASET = "up_dataset_col"
    UP_MODEL = "up_model_col"
    UP_SCORE = "up_score_col"
    UP_FOLD = "up_fold_col"
    UP_HIGHER = "up_higher"
    UP_MISSING = "up_missing"
    UP_DESC_COL = "up_desc_col"
    UP_ALIASES = "up_aliases"
    UP_NAME = "up_name"
    UP_NONCE = "up_nonce"  # int: bumped to clear the uploaders
    UP_GUESSED = "up_guessed"  # str: digest of the score file whose mapping was guessed
    # representation
    REP_TABLES = "rep_tables"
    REP_COLUMNS = "rep_columns"
    REP_TEXT = "rep_text"
    REP_LOG = "rep_log"
    REP_PCA = "rep_pca"
    REP_PCA_VAR = "rep_pca_var"
    MAP_METHOD = "map_method"
    MAP_COLOR = "map_color"
    SEED = "seed"
    # select
    SEL_STRATEGY = "sel_strategy"
    SEL_K = "sel_k"
    SEL_INCLUDE = "sel_include"
    SEL_EXCLUDE = "sel_exclude"
    SEL_METRIC = "sel_metric"
    # evaluate
    EV_STRATEGIES = "ev_strategies"
    EV_REPS = "ev_reps"
    EV_TRIALS = "ev_trials"
    EV_ALPHA = "ev_alpha"
    EV_BETA = "ev_beta"
    EV_KRANGE = "ev_krange"
    EV_METRIC = "ev_metric"
    EV_BANDS = "ev_bands"
    EV_RUN = "ev_run"  # str: id of this session's latest run in the runner registry
    EV_COMPUTE = "ev_compute"  # str: where evaluations run, one of COMPUTE_MODES
    EV_JOBS = "ev_jobs"  # int: local worker processes
    EV_SCHEDULER = "ev_scheduler"  # str: Dask scheduler address
    # report
    RP_TITLE = "rp_title"
    RP_IMAGES = "rp_images"  # dict name -> {fmt: bytes}


MAP_METHODS: tuple[str, ...] = ("UMAP", "PCA", "t-SNE")
#: Where an evaluation's trials run (see :mod:`subsetsel_app.compute_ui`).
COMPUTE_MODES: tuple[str, ...] = ("this server", "local processes", "Dask cluster")
#: ``persist_state`` of every keyed widget: values survive page switches.
PERSIST = "session"

DEFAULTS: dict[str, Any] = {
    K.BENCH_DIR: "sample_data",
    K.BENCH_CHOICE: None,
    K.FLASH: None,
    K.UP_LAYOUT: "long",
    K.UP_DATASET: None,
    K.UP_MODEL: None,
    K.UP_SCORE: None,
    K.UP_FOLD: "(none)",
    K.UP_HIGHER: "higher is better",
    K.UP_MISSING: "error",
    K.UP_DESC_COL: "dataset",
    K.UP_ALIASES: "",
    K.UP_NAME: "",
    K.UP_NONCE: 0,
    K.UP_GUESSED: None,
    K.REP_TABLES: None,
    K.REP_COLUMNS: None,
    K.REP_TEXT: True,
    K.REP_LOG: False,
    K.REP_PCA: False,
    K.REP_PCA_VAR: 0.9,
    K.MAP_METHOD: "UMAP",
    K.MAP_COLOR: None,
    K.SEED: 0,
    K.SEL_STRATEGY: "fafi-cosine",
    K.SEL_K: 10,
    K.SEL_INCLUDE: [],
    K.SEL_EXCLUDE: [],
    K.SEL_METRIC: "spearman",
    K.EV_STRATEGIES: list(STRATEGIES),
    K.EV_REPS: None,
    K.EV_TRIALS: 50,
    K.EV_ALPHA: 0.8,
    K.EV_BETA: 1.0,
    K.EV_KRANGE: (2, 20),
    K.EV_METRIC: "spearman",
    K.EV_BANDS: True,
    K.EV_RUN: None,
    K.EV_COMPUTE: "this server",
    K.EV_JOBS: 2,
    K.EV_SCHEDULER: "tcp://127.0.0.1:8786",
    K.RP_TITLE: "",
    K.RP_IMAGES: None,
}

#: Keys that depend on the active benchmark; reset when another benchmark is loaded.
BENCHMARK_DEPENDENT: tuple[str, ...] = (
    K.REP_TABLES, K.REP_COLUMNS, K.MAP_COLOR, K.SEL_INCLUDE, K.SEL_EXCLUDE, K.EV_REPS, K.RP_IMAGES,
)

def _copy(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value


def init_state() -> None:
    """Set every declared key that is missing to its default."""
    for key, value in DEFAULTS.items():
        if key not in st.session_state:
            st.session_state[key] = _copy(value)


def reset_for_new_benchmark() -> None:
    """Restore the defaults of every benchmark-dependent key."""
    for key in BENCHMARK_DEPENDENT:
        st.session_state[key] = _copy(DEFAULTS[key])


def ensure_choice(key: str, options: Sequence[Any], fallback: Any = None) -> None:
    """Make the stored value of a single-choice widget one of ``options``."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = fallback if fallback in options else (options[0] if options else None)


def ensure_subset(key: str, options: Sequence[Any], fallback: Sequence[Any] | None = None) -> None:
    """Keep only the stored values of a multiselect that are among ``options``."""
    cur = st.session_state.get(key)
    if cur is None:
        st.session_state[key] = [o for o in (fallback or []) if o in options]
        return
    kept = [v for v in cur if v in options]
    if kept != list(cur):
        st.session_state[key] = kept


def flash(level: str, message: str) -> None:
    """Queue a message for the next run (e.g. after a benchmark switch)."""
    st.session_state[K.FLASH] = (level, message)


def pop_flash() -> tuple[str, str] | None:
    """Take the queued message, if any."""
    msg = st.session_state.get(K.FLASH)
    st.session_state[K.FLASH] = None
    return msg


# --------------------------------------------------------------------------- select: budget, coverage, placement
# (issue 6) declared here once, like the keys above; appended so other additions stay intact.
K.SEL_MODE = "sel_mode"  # str: SELECT_MODES[0] (k datasets) or SELECT_MODES[1] (a total budget)
K.SEL_COST = "sel_cost"  # str: cost source, COST_ESTIMATE or a numeric descriptor column
K.SEL_BUDGET = "sel_budget"  # float: total budget in the cost's units
K.SEL_BUDGET_FOR = "sel_budget_for"  # str: the benchmark token and cost source the budget was set for
K.SEL_BUDGET_STRATEGY = "sel_budget_strategy"  # str: a cost-aware strategy (subsetsel_core.evaluation.budget)
K.SEL_COVERAGE = "sel_coverage"  # bool: coverage lines on the map
K.SEL_ZOOM = "sel_zoom"  # bool: the Select page's map as a plotly chart (zoom, pan) instead of the quick SVG
K.PL_TEXT = "pl_text"  # str: pasted "dataset,score" lines of a new model
K.PL_NAME = "pl_name"  # str: the new model's name
K.PL_NONCE = "pl_nonce"  # int: bumped to clear the score uploader

SELECT_MODES: tuple[str, ...] = ("k datasets", "a total budget")
COST_ESTIMATE = "estimate from size descriptors"

DEFAULTS.update({
    K.SEL_MODE: SELECT_MODES[0],
    K.SEL_COST: COST_ESTIMATE,
    K.SEL_BUDGET: None,
    K.SEL_BUDGET_FOR: None,
    K.SEL_BUDGET_STRATEGY: "fafi-cosine",
    K.SEL_COVERAGE: True,
    K.SEL_ZOOM: False,
    K.PL_TEXT: "",
    K.PL_NAME: "new model",
    K.PL_NONCE: 0,
})
BENCHMARK_DEPENDENT = (*BENCHMARK_DEPENDENT, K.SEL_COST, K.SEL_BUDGET, K.SEL_BUDGET_FOR, K.PL_TEXT)


# --------------------------------------------------------------------------- evaluate: advice, generalisation; representation check
# (issue 6) appended like the block above.
K.EV_ADV_METRIC = "ev_adv_metric"  # str: metric of the "how many datasets" advice
K.EV_ADV_TARGET = "ev_adv_target"  # float: target the 95 % band must reach (an upper bound for MAE)
K.EV_GEN_NEWEST = "ev_gen_newest"  # bool: hold out the newest models (needs release dates) instead of a random share
K.EV_GEN_FRACTION = "ev_gen_fraction"  # float: share of the models held out
K.EV_GEN_TRIALS = "ev_gen_trials"  # int: trials of the generalisation runs
K.EV_GEN_METRIC = "ev_gen_metric"  # str: metric shown in the generalisation view
K.EV_GEN_JOB = "ev_gen_job"  # tuple: key of the session's latest generalisation job (subsetsel_app.eval_tools)
K.EV_GEN_DATES = "ev_gen_dates"  # (token, ((model, ISO date), ...)) from an uploaded table, or (token, error message)
K.EV_GEN_DATES_FILE = "ev_gen_dates_file"  # the release-date uploader
K.REP_CHECK_TRIALS = "rep_check_trials"  # int: trials of the representation check's quick run
K.REP_CHECK_JOB = "rep_check_job"  # tuple: key of the session's latest representation-check job

DEFAULTS.update({
    K.EV_ADV_METRIC: "spearman",
    K.EV_ADV_TARGET: 0.9,
    K.EV_GEN_NEWEST: False,
    K.EV_GEN_FRACTION: 0.5,
    K.EV_GEN_TRIALS: 50,
    K.EV_GEN_METRIC: "spearman",
    K.EV_GEN_JOB: None,
    K.EV_GEN_DATES: None,
    K.REP_CHECK_TRIALS: 50,
    K.REP_CHECK_JOB: None,
})
BENCHMARK_DEPENDENT = (*BENCHMARK_DEPENDENT, K.EV_GEN_NEWEST, K.EV_GEN_DATES)
