"""Per-dataset rank rows that subsets add up, for complete tables and under ``partial``.

Every consumer of rankings (the protocol, a selection's agreement, the profiles, the
bootstrap of the full benchmark) does the same two things: add up per-dataset rows over
a subset (a sum, a cumulative sum, a product with resampling counts — all linear), then
compare the resulting ranking with the reference. :class:`RankTable` holds the rows and
turns sums of rows into metric values, so that each consumer is written once for both
cases (PROTOCOL.md, "Ranks" and "Missing scores: the `partial` policy"):

- **complete** table: a row is the dataset's exact integer rank sum (twice the sum over
  folds of average ranks, :func:`~subsetsel_core.ranks.ranking.rank_sums`); a subset's ranking is
  the sum over its datasets divided by ``2·F·k``, ties exact;
- **partial** table: a row is ``[r_d with 0 where undefined, 1 where defined]`` (width
  2M), the rescaled ranks of PROTOCOL.md step 2; a subset's ranking is, per model, the
  mean of r_d over the datasets where it is defined (step 3), and the metrics use the
  models defined in both rankings (step 4). Means are rounded to 10 decimals before they
  are compared, so that mathematically equal means (different sums of the same rational
  ranks) tie on every CPU.

On a complete table the partial policy builds the complete kind, so ``partial`` gives
exactly the complete-data numbers (step 5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from subsetsel_core.ranks.metrics import METRICS, agreement
from subsetsel_core.ranks.ranking import rank_sums, twice_average_ranks

_DECIMALS = 10


def partial_rank_vectors(scores: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Rescaled per-dataset ranks with gaps (PROTOCOL.md, ``partial`` steps 1–2).

    Parameters
    ----------
    scores : ndarray of shape (n, F, M)
        Scores, NaN where missing (no infinities).
    higher_is_better : bool

    Returns
    -------
    ndarray of shape (n, M)
        r_d[model]: the mean over the folds where the model is present of its rank among
        the present models (1 = best, average ties) rescaled to 1…M; NaN where the model
        is absent from every fold, or every fold it is in has fewer than 2 models.
    """
    s = -scores if higher_is_better else scores
    present = ~np.isnan(s)
    m_total = s.shape[2]
    # absent models sort last, so the present models' ranks are their ranks among themselves
    r = twice_average_ranks(np.where(present, s, np.inf)) / 2.0
    m = present.sum(axis=2, keepdims=True)
    ok = present & (m >= 2)
    scale = (m_total - 1) / np.maximum(m - 1, 1)
    rp = np.where(ok, 1.0 + (r - 1.0) * scale, 0.0)
    n_ok = ok.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: np.ndarray = np.where(n_ok > 0, rp.sum(axis=1) / n_ok, np.nan)
    return out


@dataclass(frozen=True, eq=False)
class RankTable:
    """Per-dataset rows that add up to subset rankings.

    Attributes
    ----------
    rows : ndarray of shape (n, W)
        Complete: exact rank sums, W = M (int64). Partial: ``[values, defined]``, W = 2M.
    n_models : int
        M.
    n_folds : int
        F.
    partial : bool
        Whether the table has gaps (the ``partial`` policy's rows).
    """

    rows: np.ndarray
    n_models: int
    n_folds: int
    partial: bool

    @classmethod
    def of(cls, scores: np.ndarray, higher_is_better: bool, *, partial: bool | None = None) -> RankTable:
        """The table of a score cube (n, F, M).

        ``partial``: build the partial kind (True) or the complete kind (False, the cube
        must have no gaps); None: partial exactly when the cube has gaps.
        """
        n, f, m = scores.shape
        if not (np.isnan(scores).any() if partial is None else partial):
            return cls(rank_sums(scores, higher_is_better), m, f, False)
        r = partial_rank_vectors(scores, higher_is_better)
        defined = ~np.isnan(r)
        return cls(np.hstack([np.where(defined, r, 0.0), defined.astype(float)]), m, f, True)

    @property
    def n_datasets(self) -> int:
        """n."""
        return int(self.rows.shape[0])

    def reference(self) -> np.ndarray:
        """The reference rows' sum over all n datasets, shape (W,)."""
        out: np.ndarray = self.rows.sum(axis=0)
        return out

    def means(self, total: np.ndarray, count: float | np.ndarray = 1.0) -> np.ndarray:
        """Mean ranks from summed rows (..., W): NaN where a model is undefined.

        ``count`` (broadcasting to the leading axes) is the number of datasets summed,
        used by complete tables only.
        """
        total = np.asarray(total, dtype=float)
        if not self.partial:
            out: np.ndarray = total / (2.0 * self.n_folds * np.expand_dims(np.asarray(count, float), -1))
            return out
        m = self.n_models
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = total[..., :m] / total[..., m:]
        return np.where(total[..., m:] > 0, np.round(mean, _DECIMALS), np.nan)

    def comparable(self, total: np.ndarray) -> np.ndarray:
        """Summed rows (..., W) as values whose order is the ranking's, ties exact.

        Complete tables: the integer sums themselves (all rows summed over the same number
        of datasets). Partial: the rounded means, an undefined model last.
        """
        if not self.partial:
            return np.asarray(total)
        return np.nan_to_num(self.means(total), nan=np.inf)

    def agreement(
        self,
        ref: np.ndarray,
        sub: np.ndarray,
        *,
        ref_count: float | np.ndarray,
        sub_count: float | np.ndarray,
        metrics: Sequence[str] = tuple(METRICS),
    ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Metrics of subset rankings against reference rankings, from summed rows.

        Parameters
        ----------
        ref : ndarray of shape (T, W) or (W,)
            Summed reference rows.
        sub : ndarray of shape (T, K, W) or (K, W)
            Summed subset rows (2-D with a 1-D ``ref``: the results are (K,)).
        ref_count : float or ndarray of shape (T,)
            Datasets summed in ``ref`` (complete tables).
        sub_count : float or ndarray of shape (K,) or (T, K)
            Datasets summed in ``sub`` (complete tables).
        metrics : sequence of str

        Returns
        -------
        values : dict metric → ndarray (T, K)
        covered : ndarray (T, K)
            Share of the M models defined in both rankings (1 on complete tables).
        """
        if np.ndim(ref) == 1:
            values, covered = self.agreement(np.asarray(ref)[None], np.asarray(sub)[None], ref_count=ref_count,
                                             sub_count=sub_count, metrics=metrics)
            return {k: v[0] for k, v in values.items()}, covered[0]
        if not self.partial:
            f2 = 2.0 * self.n_folds
            values = agreement(ref, sub, ref_scale=1.0 / (f2 * np.asarray(ref_count, float)),
                               sub_scale=1.0 / (f2 * np.asarray(sub_count, float)), metrics=metrics)
            return values, np.ones(sub.shape[:2])
        return _partial_agreement(self.means(ref), self.means(sub), metrics)


def _partial_agreement(ref: np.ndarray, sub: np.ndarray,
                       metrics: Sequence[str]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Metrics on the models defined in both rankings (PROTOCOL.md, ``partial`` step 4).

    Cells whose rankings cover every model are computed together; the others one group of
    cells with the same covered models at a time. A cell that covers no model scores as a
    ranking that ties every model (it says nothing).
    """
    t, k, m = sub.shape
    both = ~np.isnan(ref)[:, None, :] & ~np.isnan(sub)
    covered = both.sum(axis=2)
    full = covered == m
    fill_ref = np.nan_to_num(ref, nan=(m + 1) / 2.0)
    fill_sub = np.where(full[..., None], np.nan_to_num(sub, nan=0.0), fill_ref[:, None, :])
    values = {name: np.array(v, dtype=float) for name, v in agreement(fill_ref, fill_sub, metrics=metrics).items()}
    for ti in range(t):
        todo = np.flatnonzero(~full[ti])
        if todo.size == 0:
            continue
        masks = both[ti, todo]
        _, group = np.unique(masks, axis=0, return_inverse=True)
        for g in range(int(group.max()) + 1):
            cells = todo[group.ravel() == g]
            mask = both[ti, cells[0]]
            if not mask.any():
                part = agreement(fill_ref[ti], np.full((len(cells), m), (m + 1) / 2.0), metrics=metrics)
            else:
                part = _covered_agreement(ref[ti, mask], sub[ti][np.ix_(cells, np.flatnonzero(mask))], metrics)
            for name, v in part.items():
                values[name][ti, cells] = v
    return values, covered / float(m)


def _covered_agreement(ref: np.ndarray, sub: np.ndarray, metrics: Sequence[str]) -> dict[str, np.ndarray]:
    """The metrics on the covered models only: ``ref`` (m,) and ``sub`` (cells, m) keep their
    1…M values (rank MAE is in the full table's rank positions), and NDCG@5 takes its
    relevance from the reference re-ranked among the covered models (m + 1 − rank ≥ 1)."""
    plain = [name for name in metrics if not METRICS[name].relevance]
    graded = [name for name in metrics if METRICS[name].relevance]
    out = agreement(ref, sub, metrics=plain) if plain else {}
    if graded:
        out.update(agreement(twice_average_ranks(ref) / 2.0, sub, metrics=graded))
    return {name: out[name] for name in metrics}
