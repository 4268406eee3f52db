"""Westfall & Young's step-down maxT with Besag & Clifford's sequential stop, on one family.

PROTOCOL.md, "Does the representation help?": one family per metric holds every entry of
the evaluation (every strategy ≠ random on every representation). Shuffle b applies one
permutation π_b to the rows of every descriptor table, so a shuffle gives one null gain per
entry, ``G^b`` (a row of the family's null matrix). With the entries ordered by observed
gain, G_(1) ≥ … ≥ G_(m),

    u_j^b = max over l ≥ j of G_(l)^b,
    p_(j) = (1 + #{b : u_j^b ≥ G_(j)}) / (1 + b),   then p_(j) = max(p_(j−1), p_(j)).

Sequential stop: at the h-th shuffle with u_1^b ≥ G_(1) the family stops; then
p_(1) = h / b and every p_(j) ≥ p_(1). The per-entry unadjusted p is
(1 + #{G_e^b ≥ G_e}) / (1 + b). The smallest possible adjusted p is 1 / (B + 1), whatever m.

Everything here is plain numpy on arrays; :mod:`subsetsel_core.evaluation.permutation` runs
the shuffles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Relative slack of "a null gain ≥ the observed one" (the identity permutation reproduces G
#: exactly, up to the order of floating-point sums).
TOL = 1e-12


def at_least(null: np.ndarray, observed: np.ndarray | float) -> np.ndarray:
    """``null ≥ observed`` with a relative slack of :data:`TOL` (element-wise, broadcasting)."""
    obs = np.asarray(observed, dtype=float)
    return np.asarray(null >= obs - TOL * np.maximum(1.0, np.abs(obs)))


def order(gains: np.ndarray) -> np.ndarray:
    """Entry positions by observed gain, largest first (ties: the earlier entry first)."""
    return np.argsort(-np.asarray(gains, dtype=float), kind="stable")


def successive_maxima(gains: np.ndarray, null: np.ndarray) -> np.ndarray:
    """u_j^b for every shuffle b (rows) and ordered position j (columns), shape (b, m)."""
    o = order(gains)
    ordered = np.asarray(null, dtype=float)[:, o]
    return np.maximum.accumulate(ordered[:, ::-1], axis=1)[:, ::-1]


def exceedances(gains: np.ndarray, null: np.ndarray) -> np.ndarray:
    """#{b : u_j^b ≥ G_(j)} per ordered position j, shape (m,)."""
    g = np.asarray(gains, dtype=float)
    if null.shape[0] == 0:
        return np.zeros(g.size, dtype=np.int64)
    u = successive_maxima(g, null)
    return np.asarray(at_least(u, g[order(g)]).sum(axis=0), dtype=np.int64)


def adjusted_p(gains: np.ndarray, null: np.ndarray, stopped_at: int | None = None) -> np.ndarray:
    """Step-down maxT adjusted p-values, in the entries' own order.

    Parameters
    ----------
    gains : ndarray, shape (m,)
        Observed gains G_e.
    null : ndarray, shape (b, m)
        Null gains of the b shuffles drawn (columns in the entries' order).
    stopped_at : int, optional
        h when the family stopped at its h-th exceedance of u_1 (the last row): then
        p_(1) = h / b.

    Returns
    -------
    ndarray, shape (m,)
    """
    g = np.asarray(gains, dtype=float)
    b = null.shape[0]
    o = order(g)
    p_ordered = (1.0 + exceedances(g, null)) / (1.0 + b)
    if stopped_at is not None:
        p_ordered[0] = stopped_at / b
    p_ordered = np.minimum(1.0, np.maximum.accumulate(p_ordered))
    out = np.empty_like(p_ordered)
    out[o] = p_ordered
    return out


def raw_p(gains: np.ndarray, null: np.ndarray) -> np.ndarray:
    """Per-entry unadjusted p = (1 + #{G_e^b ≥ G_e}) / (1 + b), shape (m,)."""
    g = np.asarray(gains, dtype=float)
    b = null.shape[0]
    hits = at_least(null, g).sum(axis=0) if b else np.zeros(g.size)
    return np.asarray((1.0 + hits) / (1.0 + b), dtype=float)


@dataclass
class Family:
    """The sequential state of one family (one metric): observed gains and the null rows so far.

    Attributes
    ----------
    gains : ndarray, shape (m,)
    stop_after : int or None
        h (None: draw all B).
    rows : list of ndarray
        One row of m null gains per shuffle taken, in shuffle order.
    top_hits : int
        Shuffles so far with u_1^b ≥ G_(1), i.e. max_e G_e^b ≥ max_e G_e.
    stopped : bool
        The h-th such shuffle came: later shuffles are not taken.
    """

    gains: np.ndarray
    stop_after: int | None
    rows: list[np.ndarray]
    top_hits: int = 0
    stopped: bool = False

    @classmethod
    def start(cls, gains: np.ndarray, stop_after: int | None) -> Family:
        """A family with no shuffle yet."""
        return cls(np.asarray(gains, dtype=float), stop_after, [])

    def take(self, row: np.ndarray) -> None:
        """Add shuffle b's null gains (ignored once stopped)."""
        if self.stopped:
            return
        r = np.asarray(row, dtype=float)
        self.rows.append(r)
        if bool(at_least(np.max(r), np.max(self.gains))):
            self.top_hits += 1
            if self.stop_after is not None and self.top_hits >= self.stop_after:
                self.stopped = True

    @property
    def drawn(self) -> int:
        """Shuffles taken."""
        return len(self.rows)

    def null(self) -> np.ndarray:
        """The null matrix, shape (b, m)."""
        return np.vstack(self.rows) if self.rows else np.empty((0, self.gains.size))

    def adjusted(self) -> np.ndarray:
        """Adjusted p-values of the shuffles taken (the sequential p when stopped)."""
        return adjusted_p(self.gains, self.null(), self.top_hits if self.stopped else None)

    def raw(self) -> np.ndarray:
        """Unadjusted per-entry p-values of the shuffles taken."""
        return raw_p(self.gains, self.null())

    def smallest_reachable(self, permutations: int) -> float:
        """The smallest adjusted p the family can still end with after ``permutations`` shuffles in all."""
        if self.stopped:
            return float(np.min(self.adjusted()))
        return (1.0 + self.top_hits) / (1.0 + permutations)
