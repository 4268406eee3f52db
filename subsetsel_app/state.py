"""Session-state keys of the dashboard: one table, :data:`KEYS`.

Each key has a default, and says whether it resets when another benchmark becomes active and
whether a workspace file saves it. :class:`K` names the keys for code (``st.session_state[K.SEED]``,
``key=K.SEED``); it is checked against :data:`KEYS` at import. Widgets are created with ``key=K.…``,
``persist_state=PERSIST`` and without a ``value=``/``index=`` argument: the default comes from
:data:`KEYS` via :func:`init`, and a value chosen on one page survives a visit to another page.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import streamlit as st

from subsetsel_core.selection.costs import COST_ESTIMATE
from subsetsel_core.settings.table import SETTINGS

from .active_data import NONE

#: ``persist_state`` of every keyed widget: values survive page switches.
PERSIST: Final = "session"
MAP_METHODS: tuple[str, ...] = ("UMAP", "PCA", "t-SNE")
#: Where an evaluation's trials run (see :mod:`subsetsel_app.views.compute`).
COMPUTE_MODES: tuple[str, ...] = ("this server", "local processes", "Dask cluster")
SELECT_MODES: tuple[str, ...] = ("k datasets", "a total budget")


@dataclass(frozen=True)
class Key:
    """One session-state key.

    Attributes
    ----------
    default : Any
        The value :func:`init` sets (lists are copied).
    resets_with_benchmark : bool
        Restored to the default when another benchmark becomes active.
    saved_in_workspace : bool
        Written to (and read back from) a workspace file.
    widget : bool
        Set only by its widget (a file uploader cannot be given a value): :func:`init`
        leaves it alone.
    label : str or None
        How the notice after a benchmark switch names the setting when the switch reset it
        (None: an internal value, never named).
    setting : str or None
        The :data:`~subsetsel_core.settings.table.SETTINGS` entry it holds (default, widget range).
    """

    default: Any = None
    resets_with_benchmark: bool = False
    saved_in_workspace: bool = False
    widget: bool = False
    label: str | None = None
    setting: str | None = None

    def __post_init__(self) -> None:
        if self.setting is not None and self.default is None:
            value = SETTINGS[self.setting].dashboard_default()
            object.__setattr__(self, "default", list(value) if isinstance(value, tuple) else value)


class K:
    """Names of the session-state keys (the values are the keys of :data:`KEYS`)."""

    ENTRY_TARGET = "entry_target"
    DATA = "data"
    BENCH_DIR = "bench_dir"
    BENCH_CHOICE = "bench_choice"
    FLASH = "flash"
    UP_LAYOUT = "up_layout"
    UP_DATASET = "up_dataset_col"
    UP_MODEL = "up_model_col"
    UP_SCORE = "up_score_col"
    UP_FOLD = "up_fold_col"
    UP_DROP = "up_drop_cols"
    UP_DROP_ROWS = "up_drop_rows"
    UP_RELEASE = "up_release_col"
    UP_HIGHER = "up_higher"
    UP_MISSING = "up_missing"
    UP_DESC_COL = "up_desc_col"
    UP_ALIASES = "up_aliases"
    UP_NAME = "up_name"
    UP_NONCE = "up_nonce"
    UP_GUESSED = "up_guessed"
    UP_RES_FORMAT = "up_res_format"
    UP_RES_METRIC = "up_res_metric"
    UP_RES_MISSING = "up_res_missing"
    UP_RES_NAME = "up_res_name"
    UP_RES_SEEN = "up_res_seen"
    REP_TABLES = "rep_tables"
    REP_COLUMNS = "rep_columns"
    REP_TEXT = "rep_text"
    REP_LOG = "rep_log"
    REP_PCA = "rep_pca"
    REP_PCA_VAR = "rep_pca_var"
    REP_CHECK_TRIALS = "rep_check_trials"
    REP_CHECK_JOB = "rep_check_job"
    MAP_METHOD = "map_method"
    MAP_COLOR = "map_color"
    SEED = "seed"
    SEL_MODE = "sel_mode"
    SEL_STRATEGY = "sel_strategy"
    SEL_K = "sel_k"
    SEL_INCLUDE = "sel_include"
    SEL_EXCLUDE = "sel_exclude"
    SEL_METRIC = "sel_metric"
    SEL_COST = "sel_cost"
    SEL_BUDGET = "sel_budget"
    SEL_BUDGET_FOR = "sel_budget_for"
    SEL_BUDGET_STRATEGY = "sel_budget_strategy"
    SEL_COVERAGE = "sel_coverage"
    SEL_ZOOM = "sel_zoom"
    PL_TEXT = "pl_text"
    PL_NAME = "pl_name"
    PL_NONCE = "pl_nonce"
    EV_STRATEGIES = "ev_strategies"
    EV_REPS = "ev_reps"
    EV_TRIALS = "ev_trials"
    EV_ALPHA = "ev_alpha"
    EV_BETA = "ev_beta"
    EV_KRANGE = "ev_krange"
    EV_METRIC = "ev_metric"
    EV_BANDS = "ev_bands"
    EV_ALL_BANDS = "ev_all_bands"
    EV_PERMUTE = "ev_permute"
    EV_PERMUTATIONS = "ev_permutations"
    EV_PERM_TRIALS = "ev_perm_trials"
    EV_RUN = "ev_run"
    EV_COMPUTE = "ev_compute"
    EV_JOBS = "ev_jobs"
    EV_SCHEDULER = "ev_scheduler"
    EV_ADV_METRIC = "ev_adv_metric"
    EV_ADV_TARGET = "ev_adv_target"
    EV_GEN_NEWEST = "ev_gen_newest"
    EV_GEN_FRACTION = "ev_gen_fraction"
    EV_GEN_TRIALS = "ev_gen_trials"
    EV_GEN_METRIC = "ev_gen_metric"
    EV_GEN_JOB = "ev_gen_job"
    EV_GEN_DATES = "ev_gen_dates"
    EV_GEN_DATES_FILE = "ev_gen_dates_file"
    EV_THEORY = "ev_theory"
    EV_CD_TEST = "ev_cd_test"
    EV_HR_SPLITS = "ev_hr_splits"
    EV_HR_TRIALS = "ev_hr_trials"
    EV_HR_NEWEST = "ev_hr_newest"
    EV_HR_METRIC = "ev_hr_metric"
    EV_HR_JOB = "ev_hr_job"
    RP_TITLE = "rp_title"
    RP_IMAGES = "rp_images"
    WS_NONCE = "ws_nonce"
    PS_ID = "ps_id"
    PS_SIG = "ps_sig"
    PS_MODE = "ps_mode"
    OWNER = "owner"


_B: dict[str, Any] = {"resets_with_benchmark": True}
_W: dict[str, Any] = {"saved_in_workspace": True}
_BW: dict[str, Any] = {**_B, **_W}

KEYS: dict[str, Key] = {
    K.ENTRY_TARGET: Key(None),  # address of the page a lone page run was going to (subsetsel_app.entry)
    # the active benchmark
    K.DATA: Key(None),  # ActiveData
    K.BENCH_DIR: Key(""),  # directory typed in the path field (only if the server allows one; "": every root)
    K.BENCH_CHOICE: Key(None),  # folder chosen on the Benchmark page
    K.FLASH: Key(None),  # [(level, message), …] shown once at the top of the next page
    # upload (Benchmark page)
    K.UP_LAYOUT: Key("long"),
    K.UP_DATASET: Key(None),
    K.UP_MODEL: Key(None),
    K.UP_SCORE: Key(None),
    K.UP_FOLD: Key(NONE),
    K.UP_DROP: Key([]),  # columns set aside (not scores) in the wide layouts
    K.UP_DROP_ROWS: Key([]),  # rows set aside (summary rows) in the wide layouts, by name
    K.UP_RELEASE: Key(NONE),  # column of model release dates
    K.UP_HIGHER: Key("higher is better"),
    K.UP_MISSING: Key("error", **_B, label="missing scores"),
    K.UP_DESC_COL: Key("dataset"),
    K.UP_ALIASES: Key(""),
    K.UP_NAME: Key(""),
    K.UP_NONCE: Key(0),  # bumped to clear the uploaders
    K.UP_GUESSED: Key(None),  # digest of the score file whose mapping was guessed
    # upload of a results folder (Benchmark page, subsetsel_app.views.result_upload)
    K.UP_RES_FORMAT: Key("auto"),
    K.UP_RES_METRIC: Key(""),  # "": each format's main metric
    K.UP_RES_MISSING: Key("error", **_B, label="missing scores of the results folder"),
    K.UP_RES_NAME: Key(""),
    K.UP_RES_SEEN: Key(None),  # digest of the results files whose missing-score policy was set
    # representation
    K.REP_TABLES: Key(None, **_BW, label="descriptor tables", setting="tables"),
    K.REP_COLUMNS: Key(None, **_BW, label="descriptor columns", setting="columns"),
    K.REP_TEXT: Key(**_BW, label="text columns", setting="text"),
    K.REP_LOG: Key(**_BW, label="log scaling", setting="log"),
    K.REP_PCA: Key(False, **_BW, label="PCA"),
    K.REP_PCA_VAR: Key(**_BW, label="PCA variance", setting="pca"),
    K.REP_CHECK_TRIALS: Key(50),  # trials of the representation check's quick run
    K.REP_CHECK_JOB: Key(None),  # job key of the session's latest representation check
    K.MAP_METHOD: Key("UMAP", **_W),
    K.MAP_COLOR: Key(None, **_BW, label="map colour"),
    K.SEED: Key(**_W, setting="seed"),
    # select
    K.SEL_MODE: Key(SELECT_MODES[0]),  # k datasets or a total budget
    K.SEL_STRATEGY: Key(**_BW, label="strategy", setting="strategy"),
    K.SEL_K: Key(**_BW, label="k", setting="k"),
    K.SEL_INCLUDE: Key(**_BW, label="must include", setting="include"),
    K.SEL_EXCLUDE: Key(**_BW, label="exclude", setting="exclude"),
    K.SEL_METRIC: Key("spearman", **_W),
    K.SEL_COST: Key(COST_ESTIMATE, **_B, label="cost per dataset"),  # COST_ESTIMATE or a numeric descriptor column
    K.SEL_BUDGET: Key(None, **_B),  # total budget in the cost's units
    K.SEL_BUDGET_FOR: Key(None, **_B),  # the benchmark token and cost source the budget was set for
    K.SEL_BUDGET_STRATEGY: Key("fafi-cosine", **_B, label="cost-aware strategy"),  # a strategy with a cost-aware variant
    K.SEL_COVERAGE: Key(True),  # coverage lines on the map
    K.SEL_ZOOM: Key(False),  # the Select map as a plotly chart (zoom, pan) instead of the quick SVG
    K.PL_TEXT: Key("", **_B, label="new model's scores"),  # pasted "dataset,score" lines of a new model
    K.PL_NAME: Key("new model", **_B, label="new model's name"),
    K.PL_NONCE: Key(0),  # bumped to clear the score uploader
    # evaluate
    K.EV_STRATEGIES: Key(**_W, setting="strategies"),
    K.EV_REPS: Key(None, **_BW, label="evaluated representations"),
    K.EV_TRIALS: Key(**_W, setting="trials"),
    K.EV_ALPHA: Key(**_W, setting="alpha"),
    K.EV_BETA: Key(**_W, setting="beta"),
    K.EV_KRANGE: Key((SETTINGS["k_min"].default, SETTINGS["k_max"].default), **_BW, label="k range"),
    K.EV_METRIC: Key(**_W, setting="metric"),
    K.EV_BANDS: Key(True, **_W),
    K.EV_ALL_BANDS: Key(False, **_W),  # bands of every strategy, not only random's and the favoured one's
    K.EV_PERMUTE: Key(True, **_W),  # run the permutation test after the evaluation
    K.EV_PERMUTATIONS: Key(**_W, setting="permutations"),  # its shuffles B (five entries need B ≥ 100)
    K.EV_PERM_TRIALS: Key(**_W, setting="permutation_trials"),  # its trials T' (the first T' of the evaluation)
    K.EV_RUN: Key(None),  # job key of this session's latest evaluation
    K.EV_COMPUTE: Key(COMPUTE_MODES[0]),
    K.EV_JOBS: Key(2),  # local worker processes
    K.EV_SCHEDULER: Key("tcp://127.0.0.1:8786"),  # Dask scheduler address
    K.EV_ADV_METRIC: Key("spearman"),  # metric of the "how many datasets" advice
    K.EV_ADV_TARGET: Key(0.9),  # target the 95 % band must reach (an upper bound for MAE)
    K.EV_GEN_NEWEST: Key(False, **_B, label="hold out the newest models"),  # instead of a random share
    K.EV_GEN_FRACTION: Key(0.5),  # share of the models held out
    K.EV_GEN_TRIALS: Key(50),
    K.EV_GEN_METRIC: Key("spearman"),
    K.EV_GEN_JOB: Key(None),  # job key of the session's latest generalisation check
    K.EV_GEN_DATES: Key(None, **_B),  # (token, ((model, ISO date), ...)) or (token, error message)
    K.EV_GEN_DATES_FILE: Key(widget=True),  # the release-date uploader
    K.EV_CD_TEST: Key("wilcoxon-holm"),  # post-hoc test of the critical-difference diagram
    K.EV_THEORY: Key(None),  # entry key shown in "What the theory predicts" (a FAFI entry of the run)
    K.EV_HR_SPLITS: Key(10),  # "How much do the scores know?": random splits of the models
    K.EV_HR_TRIALS: Key(50),  # trials per split
    K.EV_HR_NEWEST: Key(False, **_B, label="hold out the newest models (headroom)"),
    K.EV_HR_METRIC: Key("spearman"),
    K.EV_HR_JOB: Key(None),  # job key of the session's latest headroom run
    # report
    K.RP_TITLE: Key(**_BW, label="report title", setting="title"),
    K.RP_IMAGES: Key(None, **_B),  # {"signature", "images": {name: {fmt: bytes}}, "error"}
    K.WS_NONCE: Key(0),  # bumped to clear the workspace uploader after a load
    # the session kept across reloads (subsetsel_app.persist)
    K.PS_ID: Key(None),  # its id in the store ("" with the store off); None until the first run decides
    K.PS_SIG: Key(None),  # signature of the state last saved (None: none taken yet)
    K.PS_MODE: Key(""),  # "": not in the store yet; "own": saved by this session; "restored": from the address
    K.OWNER: Key(None),  # this browser session's id for its limits (subsetsel_app.limits.owner)
}


if {v for n, v in vars(K).items() if n.isupper()} != set(KEYS):
    raise RuntimeError(f"state.K and state.KEYS disagree: {sorted({v for n, v in vars(K).items() if n.isupper()} ^ set(KEYS))}")

#: Keys a workspace file holds.
SAVED: tuple[str, ...] = tuple(k for k, v in KEYS.items() if v.saved_in_workspace)


def default(key: str) -> Any:
    """A fresh copy of a key's default."""
    value = KEYS[key].default
    return list(value) if isinstance(value, list) else value


def init() -> None:
    """Set every declared key that is missing to its default."""
    for key, spec in KEYS.items():
        if not spec.widget and key not in st.session_state:
            st.session_state[key] = default(key)


def initialised() -> bool:
    """Whether :func:`init` ran in this session (``app.py`` runs it first on every run)."""
    return K.SEED in st.session_state


def reset_for_new_benchmark(ss: MutableMapping[str, Any] | None = None, *, keep: Sequence[str] = (),
                            auto: Mapping[str, Any] | None = None) -> list[tuple[str, Any, Any]]:
    """Restore the defaults of every key that resets with the benchmark (but those in ``keep``).

    Returns
    -------
    list of (key, old value, default)
        The named settings (``label``) whose value differed both from the default and from
        ``auto``'s value, the one the pages fill in for the old benchmark (its first
        descriptor table, its default colour, …): what the user had chosen.
    """
    target = st.session_state if ss is None else ss
    changed = []
    for key, spec in KEYS.items():
        if spec.resets_with_benchmark and key not in keep:
            new = default(key)
            if spec.label and key in target:
                old = target[key]
                if not _same(old, new) and not (auto is not None and key in auto and _same(old, auto[key])):
                    changed.append((key, old, new))
            target[key] = new
    return changed


def _same(a: Any, b: Any) -> bool:
    seq = (list, tuple)
    return list(a) == list(b) if isinstance(a, seq) and isinstance(b, seq) else bool(a == b)


def _shown(value: Any) -> str:
    if value is None:
        return "automatic"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple) and len(value) == 2:
        return f"{value[0]}–{value[1]}"
    if isinstance(value, list):
        head = ", ".join(map(str, value[:3]))
        return (head + f" (+{len(value) - 3} more)" if len(value) > 3 else head) or "none"
    text = " ".join(str(value).split()) or "empty"
    return text if len(text) <= 40 else text[:39] + "…"


def reset_notice(changes: Sequence[tuple[str, Any, Any]]) -> str:
    """``"Reset for the new benchmark: strategy kmeans → fafi-cosine, k 12 → 10."``"""
    return "Reset for the new benchmark: " + ", ".join(
        f"{KEYS[key].label} {_shown(old)} → {_shown(new)}" for key, old, new in changes) + "."


def plausible(key: str, value: Any) -> bool:
    """Whether a value read from a file has the type of the key's default (others are ignored)."""
    d = KEYS[key].default
    if value is None or d is None:
        return value is None or isinstance(value, str | list | bool | int | float)
    if isinstance(d, bool):
        return isinstance(value, bool)
    if isinstance(d, int | float):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(d, list | tuple):
        return isinstance(value, list | tuple) and all(isinstance(v, str | int | float) for v in value)
    return isinstance(value, type(d))


def restored(key: str, value: Any) -> Any:
    """A value read from a file in the key's type (a list back to a tuple where the default is one)."""
    return tuple(value) if isinstance(KEYS[key].default, tuple) and isinstance(value, list) else value


def saved(ss: Mapping[Any, Any]) -> dict[str, Any]:
    """The workspace settings of a session as plain JSON values (tuples as lists)."""
    return {k: _jsonable(ss[k]) for k in SAVED if k in ss}


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):  # numpy scalars
        return value.item()
    return value


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
    if (kept := [v for v in cur if v in options]) != list(cur):
        st.session_state[key] = kept


def flash(level: str, message: str, ss: MutableMapping[str, Any] | None = None) -> None:
    """Queue a message for the next run (e.g. after a benchmark switch); several are shown in order."""
    target = st.session_state if ss is None else ss
    queued = target.get(K.FLASH)
    target[K.FLASH] = [*(queued if isinstance(queued, list) else []), (level, message)]


def pop_flash() -> list[tuple[str, str]]:
    """Take the queued messages (oldest first)."""
    msgs = st.session_state.get(K.FLASH)
    st.session_state[K.FLASH] = None
    return list(msgs) if isinstance(msgs, list) else []
