"""The Select page's budget mode, coverage and new-model placement: cached wrappers and view helpers.

The core does the work (:mod:`subsetsel_core.evaluation.budget`, :mod:`subsetsel_core.coverage`,
:mod:`subsetsel_core.placement`); this module turns the page's widget values into
hashable arguments, caches the calls (``st.cache_data`` keyed by the benchmark token, the
:class:`~subsetsel_app.model.RepConfig` and plain values) and builds the tables, files and
messages the page shows.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from subsetsel_core import __version__
from subsetsel_core.coverage import Coverage, coverage
from subsetsel_core.descriptors import Representation
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.budget import BUDGET_STRATEGIES, estimate_costs, select_under_budget
from subsetsel_core.export import subset_csv
from subsetsel_core.io.names import describe_mismatch, normalise_name, short
from subsetsel_core.metrics import METRICS, agreement
from subsetsel_core.placement import Placement, place_model, read_model_scores
from subsetsel_core.representations.tabular import column_kind
from subsetsel_core.selection import Selection, subset_agreement
from subsetsel_core.viz import figures

from . import model, selectview
from .model import ActiveData, RepConfig
from .state import COST_ESTIMATE

#: Budget levels of the profile, as shares of the total cost (extended to 1 for larger budgets).
PROFILE_SHARES: tuple[float, ...] = tuple(np.round(np.linspace(0.02, 0.4, 20), 4))
RANDOM_DRAWS = 200


# --------------------------------------------------------------------------- costs


def budget_strategies(rep: Representation | None) -> list[str]:
    """Cost-aware strategies usable with this representation (only random without one)."""
    return list(BUDGET_STRATEGIES) if rep is not None else ["random"]


def cost_table(data: ActiveData) -> pd.DataFrame | None:
    """Every non-embedding descriptor table that covers all datasets, joined (None if there is none)."""
    key = ("select_tools", "cost_table")
    if key not in data.memo:
        tables = [t for t in data.usable_tables() if not model._embedding(data, t)]
        data.memo[key] = model.combined_table(data, tables).table if tables else None
    return data.memo[key]


def cost_options(data: ActiveData) -> list[str]:
    """The estimate from size descriptors, then every numeric descriptor column (memoised per benchmark)."""
    key = ("select_tools", "cost_options")
    if key not in data.memo:
        table = cost_table(data)
        cols = [] if table is None else [str(c) for c in table.columns if column_kind(table[c]) == "numeric"]
        data.memo[key] = [COST_ESTIMATE, *cols]
    return list(data.memo[key])


@dataclass(frozen=True, eq=False)
class Costs:
    """Per-dataset costs in benchmark order.

    Attributes
    ----------
    values : ndarray (n,)
    how : str
        How they were obtained (the columns used), in words.
    unit : str
        The column name, or ``"relative units"`` / ``"datasets"`` for the estimate.
    """

    values: np.ndarray
    how: str
    unit: str

    @property
    def total(self) -> float:
        """The whole benchmark's cost."""
        return float(self.values.sum())


@st.cache_data(max_entries=32, show_spinner=False)
def _costs(token: str, source: str, _data: ActiveData) -> Costs:
    table = cost_table(_data)
    if table is None:
        return Costs(np.ones(_data.benchmark.n_datasets), "uniform (no descriptor table with size or cost columns: the budget counts datasets)",
                     "datasets")
    column = None if source == COST_ESTIMATE else source
    values, how = estimate_costs(table, _data.benchmark.datasets, cost_column=column)
    if column is not None:
        unit = column
    elif how.startswith("uniform"):
        unit = "datasets"
    else:
        unit = "relative units"
    return Costs(np.asarray(values, dtype=float), how, unit)


def costs(data: ActiveData, source: str) -> Costs:
    """Per-dataset costs from a descriptor column or the size estimate (cached).

    Raises
    ------
    InputError
        The column has a missing, non-numeric or non-positive value.
    """
    return _costs(data.token, source, data)


def default_budget(c: Costs) -> float:
    """A first budget: a tenth of the total cost, at least the cheapest dataset (3 significant digits)."""
    b = max(0.1 * c.total, float(c.values.min()))
    return float(f"{b:.3g}")


def fmt_cost(v: float) -> str:
    """A cost for display: 4 significant digits, thousands separated."""
    if v == 0 or 1e-3 <= abs(v) < 1e6:
        return f"{v:,.4g}" if abs(v) < 1e4 else f"{v:,.0f}"
    return f"{v:.3e}"


# --------------------------------------------------------------------------- budget selection


@dataclass(frozen=True, eq=False)
class BudgetSelection:
    """A subset chosen under a budget.

    Attributes
    ----------
    selection : Selection
        The chosen datasets (``k`` = their number) with their agreement.
    costs : ndarray (k,)
        Their costs, in selection order.
    budget : float
    source, how, unit : str
        The cost source (column or estimate), how the costs were obtained, their unit.
    total : float
        The whole benchmark's cost.
    """

    selection: Selection
    costs: np.ndarray
    budget: float
    source: str
    how: str
    unit: str
    total: float
    cheapest: float = field(default=0.0)

    @property
    def spent(self) -> float:
        """Cost of the chosen datasets."""
        return float(self.costs.sum())


@st.cache_data(max_entries=128, show_spinner=False)
def _budget_selection(token: str, cfg: RepConfig | None, strategy: str, source: str, budget: float, seed: int,
                      exclude: tuple[str, ...], _data: ActiveData, _rep: Representation | None) -> BudgetSelection:
    bench = _data.benchmark
    c = costs(_data, source)
    ex = set(exclude)
    pool = np.asarray([i for i, d in enumerate(bench.datasets) if d not in ex], dtype=int)
    if pool.size == 0:
        raise InputError("every dataset is excluded; nothing is left to choose from.")
    X = np.zeros((bench.n_datasets, 0)) if _rep is None else _rep.X
    if _rep is None and strategy != "random":
        raise InputError(f"strategy '{strategy}' needs a representation (descriptors).")
    idx = pool[select_under_budget(X[pool], c.values[pool], float(budget), strategy, rng=seed)]
    names = tuple(bench.datasets[i] for i in idx)
    agree = subset_agreement(bench, idx) if idx.size else {}
    sel = Selection(names, tuple(int(i) for i in idx), strategy, "none" if _rep is None else _rep.name, len(idx),
                    seed, bench.name, agree, (), tuple(exclude))
    return BudgetSelection(sel, c.values[idx], float(budget), source, c.how, c.unit, c.total,
                           float(c.values[pool].min()))


def budget_selection(data: ActiveData, cfg: RepConfig | None, rep: Representation | None, strategy: str,
                     source: str, budget: float, seed: int, exclude: Sequence[str] = ()) -> BudgetSelection:
    """The datasets a cost-aware strategy takes within ``budget`` (cached).

    Raises
    ------
    InputError
        Bad costs, a non-positive budget, a strategy that needs descriptors.
    """
    return _budget_selection(data.token, cfg, strategy, source, float(budget), int(seed), tuple(exclude), data, rep)


def _random_budget_band(sums: np.ndarray, c: np.ndarray, budgets: np.ndarray, seed: int, n_folds: int,
                        metrics: Sequence[str]) -> tuple[dict[str, tuple[np.ndarray, ...]], np.ndarray]:
    """Random datasets, each taken while it fits: median and 95 % band of the agreement per budget."""
    n, m = sums.shape
    rng = np.random.default_rng(seed)
    perm = np.argsort(rng.random((RANDOM_DRAWS, n)), axis=1)
    pc = c[perm]
    ref = np.broadcast_to(sums.sum(axis=0), (RANDOM_DRAWS, m))
    subs = np.empty((RANDOM_DRAWS, budgets.size, m))
    ks = np.empty((RANDOM_DRAWS, budgets.size))
    rows = np.arange(RANDOM_DRAWS)[:, None]
    for bi, b in enumerate(budgets):
        left = np.full(RANDOM_DRAWS, float(b))
        take = np.zeros((RANDOM_DRAWS, n), dtype=bool)
        for j in range(n):
            fit = pc[:, j] <= left + 1e-12
            take[:, j] = fit
            left = left - np.where(fit, pc[:, j], 0.0)
        mask = np.zeros((RANDOM_DRAWS, n))
        mask[np.broadcast_to(rows, perm.shape)[take], perm[take]] = 1.0
        subs[:, bi] = mask @ sums
        ks[:, bi] = mask.sum(axis=1)
    vals = agreement(ref, subs, ref_scale=np.full(RANDOM_DRAWS, 1.0 / (2.0 * n_folds * n)),
                     sub_scale=1.0 / (2.0 * n_folds * np.maximum(ks, 1.0)), metrics=tuple(metrics))
    band = {k: (np.median(v, axis=0), *np.percentile(v, [2.5, 97.5], axis=0)) for k, v in vals.items()}
    return band, np.median(ks, axis=0)


@dataclass(frozen=True, eq=False)
class BudgetProfile:
    """One cost-aware subset per budget level, and random subsets that fit the same budgets."""

    budgets: np.ndarray
    values: dict[str, np.ndarray]
    k_used: np.ndarray
    spent: np.ndarray
    random_band: dict[str, tuple[np.ndarray, ...]]
    unit: str


@st.cache_data(max_entries=64, show_spinner="Choosing a subset for every budget level …")
def _budget_profile(token: str, cfg: RepConfig | None, strategy: str, source: str, seed: int, top: float,
                    exclude: tuple[str, ...], _data: ActiveData, _rep: Representation | None) -> BudgetProfile:
    bench = _data.benchmark
    c = costs(_data, source)
    shares = np.asarray(PROFILE_SHARES if top <= PROFILE_SHARES[-1] else np.round(np.linspace(0.04, 1.0, 25), 4))
    budgets = shares * c.total
    sums = bench.rank_sums
    ks = np.zeros(budgets.size)
    spent = np.zeros(budgets.size)
    subs = np.zeros((budgets.size, bench.n_models))
    for bi, b in enumerate(budgets):
        bs = _budget_selection(token, cfg, strategy, source, float(b), seed, exclude, _data, _rep)
        idx = list(bs.selection.indices)
        ks[bi], spent[bi] = len(idx), bs.spent
        if idx:
            subs[bi] = sums[idx].sum(axis=0)
    f = bench.n_folds
    vals = agreement(sums.sum(axis=0), subs, ref_scale=1.0 / (2.0 * f * bench.n_datasets),
                     sub_scale=1.0 / (2.0 * f * np.maximum(ks, 1.0)), metrics=tuple(METRICS))
    band, _ = _random_budget_band(sums, c.values, budgets, seed, f, tuple(METRICS))
    return BudgetProfile(budgets, vals, ks, spent, band, c.unit)


def budget_profile(data: ActiveData, cfg: RepConfig | None, rep: Representation | None, strategy: str, source: str,
                   seed: int, share: float, exclude: Sequence[str] = ()) -> BudgetProfile:
    """Agreement of the cost-aware strategy's subset at every budget level, with random ones (cached)."""
    top = PROFILE_SHARES[-1] if share <= PROFILE_SHARES[-1] else 1.0
    return _budget_profile(data.token, cfg, strategy, source, int(seed), float(top), tuple(exclude), data, rep)


def budget_profile_chart(prof: BudgetProfile, bs: BudgetSelection, metric: str) -> go.Figure:
    """The budget profile figure with the current subset marked."""
    cur = None
    if bs.selection.k and metric in bs.selection.agreement:
        cur = (bs.budget, float(bs.selection.agreement[metric]))
    return figures.budget_profile_figure(prof.budgets, prof.values, prof.random_band, metric,
                                         strategy=bs.selection.strategy, k_used=prof.k_used, spent=prof.spent,
                                         current=cur, unit=prof.unit)


# --------------------------------------------------------------------------- coverage


@st.cache_data(max_entries=256, show_spinner=False)
def _coverage(token: str, cfg: RepConfig, seed: int, chosen: tuple[str, ...], _rep: Representation) -> Coverage:
    return coverage(_rep, list(chosen))


def subset_coverage(data: ActiveData, cfg: RepConfig | None, rep: Representation | None, chosen: Sequence[str],
                    seed: int) -> Coverage | None:
    """What each chosen dataset stands for (cached); None without descriptors or a subset."""
    if rep is None or cfg is None or not chosen:
        return None
    return _coverage(data.token, cfg, int(seed), tuple(chosen), rep)


def representative_positions(cov: Coverage) -> list[int]:
    """For each dataset, the position of its representative (benchmark order)."""
    index = {d: i for i, d in enumerate(cov.datasets)}
    return [index[r] for r in cov.representative]


def poorly_positions(cov: Coverage) -> list[int]:
    """Positions of the datasets not covered well."""
    index = {d: i for i, d in enumerate(cov.datasets)}
    return [index[d] for d in cov.poorly_covered]


def poorly_frame(cov: Coverage, limit: int = 8) -> pd.DataFrame:
    """The datasets nothing covers well, farthest first: dataset, nearest chosen, distance."""
    index = {d: i for i, d in enumerate(cov.datasets)}
    rows = [{"dataset": d, "nearest chosen": cov.representative[index[d]], "distance": float(cov.distance[index[d]])}
            for d in cov.poorly_covered[:limit]]
    return pd.DataFrame(rows, columns=["dataset", "nearest chosen", "distance"])


def coverage_columns(cov: Coverage, chosen: Sequence[str]) -> pd.DataFrame:
    """Per chosen dataset: how many unchosen datasets it stands for, their names, the farthest one's distance."""
    members = cov.members()
    index = {d: i for i, d in enumerate(cov.datasets)}
    far = [max((float(cov.distance[index[m]]) for m in members.get(d, [])), default=0.0) for d in chosen]
    return pd.DataFrame({
        "n_represented": [len(members.get(d, [])) for d in chosen],
        "represents": ["; ".join(members.get(d, [])) for d in chosen],
        "farthest_member_distance": far,
    })


# --------------------------------------------------------------------------- the table and the files


def subset_table(data: ActiveData, cfg: RepConfig | None, sel: Selection, *, bs: BudgetSelection | None = None,
                 cov: Coverage | None = None) -> pd.DataFrame:
    """``order, dataset``, then cost and cumulative cost (budget mode), coverage columns, descriptors."""
    df = selectview.subset_frame(data, cfg, sel)
    head = df[["order", "dataset"]]
    rest = df.drop(columns=["order", "dataset"])
    parts = [head]
    if bs is not None:
        parts.append(pd.DataFrame({"cost": bs.costs, "cumulative_cost": np.cumsum(bs.costs)}))
    if cov is not None:
        parts.append(coverage_columns(cov, list(sel.datasets)))
    rest = rest[[c for c in rest.columns if c not in {"cost", "cumulative_cost", "n_represented", "represents",
                                                      "farthest_member_distance"}]]
    parts.append(rest)
    return pd.concat([p.reset_index(drop=True) for p in parts], axis=1)


def sidecar(data: ActiveData, cfg: RepConfig | None, sel: Selection, *, bs: BudgetSelection | None = None,
            cov: Coverage | None = None) -> dict[str, object]:
    """The JSON sidecar of :mod:`~subsetsel_app.selectview` plus the budget and coverage facts."""
    meta = selectview.sidecar(data, cfg, sel)
    meta["mode"] = "budget" if bs is not None else "k"
    if bs is not None:
        meta["budget"] = {"total_budget": bs.budget, "cost_source": bs.source, "costs": bs.how, "unit": bs.unit,
                          "spent": bs.spent, "benchmark_total_cost": bs.total,
                          "share_of_total": bs.spent / bs.total if bs.total else None}
    if cov is not None:
        meta["coverage"] = {"covering_radius": cov.radius, "threshold": cov.threshold,
                            "poorly_covered": list(cov.poorly_covered),
                            "distance": "Euclidean on the representation standardised over all datasets"}
    meta["subsetsel_version"] = __version__
    return meta


def downloads(data: ActiveData, cfg: RepConfig | None, sel: Selection, *, bs: BudgetSelection | None = None,
              cov: Coverage | None = None) -> tuple[bytes, bytes]:
    """The subset CSV (formula-safe cells, cost and coverage columns) and its JSON sidecar."""
    csv_text = subset_csv(subset_table(data, cfg, sel, bs=bs, cov=cov))
    side = json.dumps(sidecar(data, cfg, sel, bs=bs, cov=cov), indent=2, ensure_ascii=False, default=str)
    return csv_text.encode("utf-8"), side.encode("utf-8")


def file_stem(sel: Selection, bs: BudgetSelection | None = None) -> str:
    """``subset_<bench>_<strategy>_k<k>_seed<seed>``; in budget mode ``…_budget<B>_seed<seed>``."""
    if bs is None:
        return selectview.file_stem(sel)
    raw = f"subset_{sel.benchmark}_{sel.strategy}_budget{bs.budget:.4g}_seed{sel.seed}"
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", raw)[:120]


# --------------------------------------------------------------------------- a new model's scores

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
    """

    rows: tuple[tuple[str, str | None, float], ...]
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def frame(self) -> pd.DataFrame:
        """``dataset, fold, score`` as :func:`~subsetsel_core.placement.place_model` takes it."""
        return pd.DataFrame(list(self.rows), columns=["dataset", "fold", "score"])


def _number(text: str) -> float | None:
    t = text.strip().replace("\u2212", "-")
    if t.endswith("%"):
        t = t[:-1]
    try:
        v = float(t)
    except ValueError:
        try:
            v = float(t.replace(",", ".")) if t.count(",") == 1 and "." not in t else float("nan")
        except ValueError:
            return None
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
            v = _number(value.strip().strip('"'))
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

    A two-column file with other headers is read as dataset, score.
    """
    label = short(name, 60)
    try:
        head = pd.read_csv(io.BytesIO(content), nrows=0, sep=None, engine="python").columns
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError, csv.Error) as exc:
        return ParsedScores((), (f"{label}: not a readable CSV ({short(str(exc), 120)}).",))
    cols = [str(c).strip() for c in head]
    low = {c.lower(): c for c in cols}
    ds_col = low.get("dataset") or (cols[0] if len(cols) == 2 else None)
    sc_col = low.get("score") or (cols[-1] if len(cols) == 2 else None)
    if ds_col is None or sc_col is None:
        return ParsedScores((), (f"{label}: needs a 'dataset' and a 'score' column (or exactly two columns); "
                                 f"the columns are {', '.join(repr(short(c, 30)) for c in cols[:10])}.",))
    try:
        df = read_model_scores(content, dataset_column=ds_col, score_column=sc_col,
                               fold_column=low.get("fold"), label=label)
    except InputError as exc:
        return ParsedScores((), (str(exc),))
    rows = tuple((str(d), None if f is None or (isinstance(f, float) and np.isnan(f)) else str(f), float(s))
                 for d, f, s in zip(df["dataset"], df["fold"] if df["fold"].notna().any() else [None] * len(df),
                                    df["score"], strict=True))
    return ParsedScores(rows)


def check_scores(parsed: ParsedScores, data: ActiveData, subset: Sequence[str]) -> ParsedScores:
    """Match the names against the benchmark and the subset; add problems and notes."""
    problems = list(parsed.problems)
    notes = list(parsed.notes)
    bench = data.benchmark
    if not parsed.rows:
        if not problems:
            problems.append("no scores given: paste one 'dataset,score' line per chosen dataset.")
        return ParsedScores(parsed.rows, tuple(problems), tuple(notes))
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
            s = bench.scores[index[d]]
            lo, hi = float(np.nanmin(s)), float(np.nanmax(s))
            pad = max(hi - lo, 1e-9)
            if v < lo - pad or v > hi + pad:
                out_of_range.append(d)
    if out_of_range and len(out_of_range) >= max(1, len(subset) // 2):
        notes.append(f"{len(out_of_range)} score(s) are far outside the existing models' range on those datasets "
                     f"(e.g. '{short(out_of_range[0])}'): check the metric and its scale "
                     f"({'higher' if bench.higher_is_better else 'lower'} is better; a fraction, not a percentage?).")
    return ParsedScores(parsed.rows, tuple(problems), tuple(notes))


def template_csv(subset: Sequence[str]) -> bytes:
    """A ``dataset,score`` file with the chosen datasets and empty scores, to fill in."""
    from subsetsel_core.export import safe_frame

    return safe_frame(pd.DataFrame({"dataset": list(subset), "score": [""] * len(subset)})).to_csv(
        index=False).encode("utf-8")


@st.cache_data(max_entries=64, show_spinner="Placing the model …")
def _placement(token: str, subset: tuple[str, ...], rows: tuple[tuple[str, str | None, float], ...], name: str,
               seed: int, _data: ActiveData) -> Placement:
    keep = set(subset)
    df = pd.DataFrame([r for r in rows if r[0] in keep], columns=["dataset", "fold", "score"])
    return place_model(_data.benchmark, list(subset), df, name=name, seed=seed)


def placement(data: ActiveData, subset: Sequence[str], parsed: ParsedScores, name: str, seed: int) -> Placement:
    """:func:`~subsetsel_core.placement.place_model` on the subset (cached).

    Raises
    ------
    InputError
        The name is an existing model's, a subset of fewer than 2 datasets, missing folds.
    """
    return _placement(data.token, tuple(subset), parsed.rows, name.strip() or "new model", int(seed), data)


def placement_chart(data: ActiveData, pl: Placement) -> go.Figure:
    """The leaderboard with the new model's estimate and interval marked."""
    from . import data as D

    return figures.placement_figure(D.leaderboard(data), pl.model, pl.estimated_mean_rank, pl.mean_rank_interval)


# --------------------------------------------------------------------------- widget state


def budget_step(total: float) -> tuple[float, str]:
    """A 1-2-5 step of about a two-hundredth of the total, and a matching number format."""
    raw = max(total / 200.0, 1e-9)
    mag = 10.0 ** np.floor(np.log10(raw))
    step = float(min((m * mag for m in (1, 2, 5, 10) if m * mag >= raw), default=10 * mag))
    decimals = int(max(0, -np.floor(np.log10(step))))
    # enough decimals to show the default budget (3 significant digits of a tenth of the total)
    decimals = max(decimals, int(2 - np.floor(np.log10(max(0.1 * total, 1e-9)))))
    return step, f"%.{min(max(decimals, 0), 6)}f"


def ensure_budget_state(data: ActiveData, c: Costs) -> None:
    """Reset the budget to its default when the benchmark or the cost source changed; keep it in range."""
    from .state import K

    ss = st.session_state
    owner = f"{data.token}|{ss[K.SEL_COST]}"
    if ss.get(K.SEL_BUDGET_FOR) != owner or ss.get(K.SEL_BUDGET) is None:
        ss[K.SEL_BUDGET] = default_budget(c)
        ss[K.SEL_BUDGET_FOR] = owner
    b = float(ss[K.SEL_BUDGET])
    if not 0.0 <= b <= c.total:
        ss[K.SEL_BUDGET] = float(min(max(b, 0.0), c.total))
