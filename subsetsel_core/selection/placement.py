"""Where would a new model rank? Placing it from its scores on the chosen subset only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import InputError
from subsetsel_core.io.names import describe_mismatch
from subsetsel_core.io.tables import TableSource, read_table, source_label
from subsetsel_core.ranks.ranking import rank_sums
from subsetsel_core.text.safe_csv import restore


@dataclass(frozen=True)
class Placement:
    """Estimated full-benchmark standing of a new model.

    Attributes
    ----------
    model : str
    subset : tuple of str
    subset_position : int
        Position among the M + 1 models on the subset (1 = best).
    estimated_mean_rank : float
        Predicted mean rank on the whole benchmark, on the existing models' scale (ranks
        among the M existing models).
    mean_rank_interval : tuple of float
        95 % prediction interval of ``estimated_mean_rank``.
    position : int
        Predicted position among the M + 1 models on the whole benchmark (1 = best).
    position_interval : tuple of int
        95 % interval of ``position``.
    above, below : str or None
        Existing models just better / just worse than the prediction.
    """

    model: str
    subset: tuple[str, ...]
    subset_position: int
    estimated_mean_rank: float
    mean_rank_interval: tuple[float, float]
    position: int
    position_interval: tuple[int, int]
    above: str | None
    below: str | None
    n_models: int

    def sentence(self) -> str:
        """Plain-language summary."""
        lo, hi = self.position_interval
        around = []
        if self.above:
            around.append(f"below {self.above}")
        if self.below:
            around.append(f"above {self.below}")
        return (f"{self.model}: estimated position {self.position} of {self.n_models} on the full benchmark "
                f"(95 % interval {lo}–{hi}), {' and '.join(around)}; it is {self.subset_position} of "
                f"{self.n_models} on the {len(self.subset)} chosen datasets.")


def read_model_scores(
    source: TableSource, *, dataset_column: str = "dataset", score_column: str = "score",
    fold_column: str | None = "fold", label: str | None = None,
) -> pd.DataFrame:
    """A new model's scores: rows ``dataset[, fold], score`` (a ``model`` column is ignored).

    Dataset names are read back as the product's CSVs write them: the template's
    ``'+aug`` is the dataset ``+aug`` (:func:`~subsetsel_core.text.safe_csv.restore`), and its
    leading ``# key: value`` provenance block is no row (:func:`~subsetsel_core.io.tables.read_table`
    skips it, also as a spreadsheet saves it again).

    Returns
    -------
    DataFrame with columns dataset, fold (``None`` when absent) and score.
    """
    label = source_label(source, label)
    df = read_table(source, label=label)
    for col in (dataset_column, score_column):
        if col not in df.columns:
            raise InputError(f"{label}: no '{col}' column; the columns are {list(df.columns)}.")
    if "model" in df.columns and df["model"].nunique() > 1:
        raise InputError(f"{label}: has scores of {df['model'].nunique()} models; give one model's scores.")
    score = pd.to_numeric(df[score_column], errors="coerce")
    if score.isna().any() or not np.isfinite(score).all():
        bad = df.index[score.isna() | ~np.isfinite(score.fillna(0))][:5]
        raise InputError(f"{label}: non-numeric or missing scores in rows {[int(i) + 2 for i in bad]}.")
    fold = df[fold_column].astype(str).str.strip() if fold_column and fold_column in df.columns else None
    names = df[dataset_column].astype(str).str.strip().map(restore)
    return pd.DataFrame({"dataset": names, "fold": fold, "score": score})


def place_model(
    benchmark: Benchmark,
    subset: Sequence[str],
    scores: pd.DataFrame | pd.Series | dict[str, float],
    *,
    name: str = "new model",
    n_boot: int = 2000,
    seed: int = 0,
) -> Placement:
    """Place a new model on the full benchmark from its scores on ``subset``.

    The new model is ranked with the existing models on every chosen dataset (and fold;
    a single score per dataset is compared with every fold). Over the existing models,
    their full-benchmark mean rank is regressed on their subset mean rank; the new
    model's subset mean rank gives its predicted full mean rank. The interval comes from
    a bootstrap over the chosen datasets (refitting the regression) plus a resampled
    residual, i.e. from the existing models' subset-versus-full relation.

    Parameters
    ----------
    benchmark : Benchmark
        The existing models' scores (the new model must not be among them).
    subset : sequence of str
        The chosen datasets.
    scores : DataFrame (dataset[, fold], score), Series or dict dataset → score
    name : str
    n_boot : int
    seed : int

    Returns
    -------
    Placement
    """
    if benchmark.has_gaps:
        raise InputError(
            f"{benchmark.name}: placing a new model needs every existing model's score on the chosen datasets, "
            "and this table has gaps (the 'partial' policy); load it with the 'complete-block' policy to place "
            "a model.", field="missing")
    if name in benchmark.models:
        raise InputError(f"'{name}' is already a model of the benchmark; give the new model another name.")
    if isinstance(scores, dict):
        scores = pd.Series(scores)
    if isinstance(scores, pd.Series):
        scores = pd.DataFrame({"dataset": scores.index.astype(str), "fold": None, "score": scores.to_numpy()})
    index = {d: i for i, d in enumerate(benchmark.datasets)}
    unknown = [d for d in subset if d not in index]
    if unknown:
        raise InputError(f"subset datasets not in the benchmark: {describe_mismatch(unknown, benchmark.datasets)}.")
    if len(subset) < 2:
        raise InputError("placing a model needs a subset of at least 2 datasets.")
    have = set(scores["dataset"])
    lacking = [d for d in subset if d not in have]
    if lacking:
        raise InputError(f"the new model has no score on {len(lacking)} chosen dataset(s): "
                         f"{describe_mismatch(lacking, sorted(have))}. Score it on every chosen dataset.")
    S = np.asarray([index[d] for d in subset])
    F = benchmark.n_folds
    new = np.empty((len(S), F))
    for i, d in enumerate(subset):
        rows = scores[scores["dataset"] == d]
        if rows["fold"].isna().all() or len(rows) == 1:
            new[i, :] = float(rows["score"].mean())
        else:
            by_fold = dict(zip(rows["fold"].astype(str), rows["score"].astype(float), strict=False))
            missing = [f for f in benchmark.folds if f not in by_fold]
            if missing:
                raise InputError(f"the new model lacks folds {missing[:5]} on dataset '{d}'.")
            new[i, :] = [by_fold[f] for f in benchmark.folds]
    turned = [i for i, d in enumerate(subset) if d in set(benchmark.flipped)]
    new[turned] = -new[turned]  # stored negated, as the benchmark's scores of these datasets
    cube = np.concatenate([benchmark.scores[S], new[:, :, None]], axis=2)  # (k, F, M+1)
    per_ds = rank_sums(cube, benchmark.higher_is_better) / (2.0 * F)  # (k, M+1) mean ranks per dataset
    full = benchmark.rank_vectors.mean(axis=0)  # (M,) existing models, full benchmark
    m = benchmark.n_models

    def fit(sub: np.ndarray) -> tuple[float, float, np.ndarray]:
        x = sub[:m]
        b, a = np.polyfit(x, full, 1) if np.ptp(x) > 0 else (0.0, float(full.mean()))
        return a + b * sub[m], a, full - (a + b * x)

    sub = per_ds.mean(axis=0)
    pred, _, resid = fit(sub)
    rng = np.random.default_rng(seed)
    draws = np.empty(n_boot)
    for t in range(n_boot):
        idx = rng.integers(0, len(S), size=len(S))
        p, _, r = fit(per_ds[idx].mean(axis=0))
        draws[t] = p + r[rng.integers(0, m)]
    lo, hi = np.percentile(draws, [2.5, 97.5])
    order = np.argsort(full, kind="stable")

    def position(v: float) -> int:
        return int(1 + (full < v).sum())

    pos = position(pred)
    above = benchmark.models[order[pos - 2]] if pos >= 2 else None
    below = benchmark.models[order[pos - 1]] if pos - 1 < m else None
    subset_pos = int(1 + (sub[:m] < sub[m]).sum())
    return Placement(name, tuple(subset), subset_pos, float(pred), (float(lo), float(hi)), pos,
                     (position(lo), position(hi)), above, below, m + 1)
