"""Numbers for people: one registry of how many digits each quantity is shown with.

Everywhere a person reads a number — the command line's tables, the dashboard's tables,
the CSV files, the HTML report, LaTeX — it is rounded by the rule of its quantity
(:data:`QUANTITIES`); only JSON keeps full precision. A rule is a number of significant
digits (``sig``) or of decimals (``decimals``), perhaps signed, as a percentage or with
trailing zeros trimmed; p-values are written by :func:`format_p` (``"< 1e-4"``, ``"0.020"``) and
kept in CSVs as numbers of two significant digits. Numbers written for a machine (SVG
coordinates, names that files key on) are not people's numbers and do not come here.

:data:`COLUMNS` says which quantity each known column of the product's tables holds;
:func:`round_frame` rounds those columns (numbers stay numbers), :func:`text` writes one
value, :func:`printf` gives the format for a dashboard table column, :func:`d3` for a plotly hover.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["COLUMNS", "QUANTITIES", "Rule", "d3", "format_p", "printf", "round_frame", "rounded", "text"]


@dataclass(frozen=True)
class Rule:
    """How a quantity is shown: ``sig`` significant digits, or ``decimals`` digits after the point."""

    sig: int | None = None
    decimals: int | None = None
    signed: bool = False
    """Show a ``+`` on positive values (gains)."""
    percent: bool = False
    """A fraction shown as a percentage: ``0.123`` → ``"12.3%"`` (``decimals`` of the percentage)."""
    trim: bool = False
    """Trailing zeros dropped (``5``, not ``5.000``): a value read alone, not in a column of them."""


QUANTITIES: dict[str, Rule] = {
    "auc": Rule(sig=4),                 # area under the agreement-vs-k curve (and its std, interval)
    "auc_normalised": Rule(sig=4),      # AUC / (number of k − 1)
    "gain": Rule(sig=3, signed=True),   # gain in AUC over random
    "gain_sd": Rule(sig=3),             # the spread of a gain (sd of the gains with shuffled descriptors)
    "agreement": Rule(decimals=3),      # a rank-agreement value (Spearman, Kendall, …) and its bands
    "agreement_change": Rule(decimals=3, signed=True),  # a difference of agreement values (a subset vs random)
    "p": Rule(sig=2),                   # p-values: format_p for people, two significant digits in a CSV
    "distance": Rule(sig=4),            # distances between datasets, the covering radius
    "cost": Rule(sig=4),                # per-dataset costs and their sums
    "mean_rank": Rule(decimals=3),      # mean ranks (critical-difference diagram, placement)
    "statistic": Rule(sig=4),           # test statistics: Friedman χ², the critical difference
    "correlation": Rule(decimals=3),    # correlations in [−1, 1]: Mantel r, CKA, the geometry's Spearman ρ
    "parameter": Rule(sig=3),           # fitted model parameters (the Gaussian process's length-scale, variances)
    "share": Rule(decimals=3),          # a fraction of something, in a table column
    "percent": Rule(decimals=1, percent=True),  # a fraction of something in a sentence: "12.3%"
    "score": Rule(sig=4),               # a model's score on the benchmark's own metric (accuracy, error, …)
    "descriptor": Rule(sig=4, trim=True),  # a dataset's descriptor value (map hovers and legends, imputed medians)
    "count": Rule(decimals=0),          # a count that arrives as a float (datasets in a plotly hover)
    "seconds": Rule(sig=2),             # a duration or an estimate of one: "0.84 s", "12 s", "140 s"
    "megabytes": Rule(sig=3, trim=True),           # a file size in MB (2**20 bytes)
    "ratio": Rule(sig=2),               # how many times one quantity is another (ℓ / nearest-neighbour distance)
}
"""Quantity → how it is rounded for people."""

COLUMNS: dict[str, str] = {
    "auc_mean": "auc", "auc_std": "auc", "auc_lo": "auc", "auc_hi": "auc", "AUC": "auc",
    "auc_norm": "auc_normalised", "normalised AUC": "auc_normalised",
    "gain over random": "gain", "gain": "gain",
    "p_vs_random": "p", "p_raw": "p", "p_permutation": "p", "p": "p",
    "mean": "agreement", "lo": "agreement", "hi": "agreement", "std": "agreement",
    "spearman": "agreement", "kendall": "agreement",
    "farthest_member_distance": "distance", "distance": "distance", "covering_radius": "distance",
    "cost": "cost", "cumulative_cost": "cost", "budget": "share",
    "mean_rank": "mean_rank", "mean rank": "mean_rank",
}
"""Column name of the product's tables → the quantity it holds."""


def format_p(p: float | None) -> str:
    """A p-value for people: ``"< 1e-4"``, scientific below 0.001, three digits else; None → ``"—"``."""
    if p is None or not math.isfinite(p):
        return "—"
    if p < 1e-4:
        return "< 1e-4"
    if p < 1e-3:
        return f"{p:.1e}"
    return f"{p:.3f}" if p < 0.1 else f"{p:.2f}"


def rounded(value: float, quantity: str) -> float:
    """``value`` rounded by the rule of ``quantity`` (NaN and infinities unchanged)."""
    v = float(value)
    if not math.isfinite(v) or v == 0.0:
        return v
    rule = QUANTITIES[quantity]
    if rule.decimals is not None:
        return round(v, rule.decimals)
    digits = (rule.sig or 4) - 1 - math.floor(math.log10(abs(v)))
    return round(v, digits)


def text(value: float | None, quantity: str, *, grouped: bool = False) -> str:
    """``value`` as a person reads it (``"—"`` for a missing value; p-values by ``format_p``).

    ``grouped``: thousands separated (``"12,346"``) and scientific outside [0.001, 10⁶)
    (``"2.500e+07"``), for a figure that stands alone, such as a dashboard's metric card.
    """
    if value is None or not math.isfinite(float(value)):
        return "—"
    if quantity == "p":
        return format_p(float(value))
    rule = QUANTITIES[quantity]
    v = float(value)
    if grouped and not rule.percent:
        return _grouped(v, rule)
    if rule.percent:
        return f"{v:{'+' if rule.signed else ''}.{rule.decimals or 0}%}"
    if rule.decimals is not None:
        out = f"{v:+.{rule.decimals}f}" if rule.signed else f"{v:.{rule.decimals}f}"
    else:
        sig = rule.sig or 4
        sign = "+" if rule.signed else ""
        r = rounded(v, quantity)
        # %g turns 12350 into 1.235e+04: large values keep their integer part
        # '#': trailing zeros kept (7.410, not 7.41), so a column of numbers lines up
        keep = "" if rule.trim else "#"
        if abs(r) >= 1e15:  # beyond the integers a float holds exactly: scientific (1e+300, not 301 digits)
            out = f"{r:{sign}.{sig}g}"
        else:
            out = f"{r:{sign}.0f}" if abs(r) >= 10 ** sig else f"{r:{sign}{keep}.{sig}g}".rstrip(".")
    return out


def _grouped(v: float, rule: Rule) -> str:
    sign = "+" if rule.signed else ""
    if rule.decimals is not None:
        return f"{v:{sign},.{rule.decimals}f}"
    sig = rule.sig or 4
    if v == 0 or 1e-3 <= abs(v) < 1e6:
        return f"{v:{sign},.{sig}g}" if abs(v) < 10**sig else f"{v:{sign},.0f}"
    return f"{v:{sign}.{sig - 1}e}"


def printf(quantity: str) -> str:
    """A printf-style format of the rule (for a dashboard table column).

    A percentage has none (printf does not scale by 100): :class:`ValueError`; write it with :func:`text`.
    """
    rule = QUANTITIES[quantity]
    if rule.percent:
        raise ValueError(f"{quantity!r} is a percentage: printf cannot scale by 100; use rounding.text")
    plus = "+" if rule.signed else ""
    return f"%{plus}.{rule.decimals}f" if rule.decimals is not None else f"%{plus}.{rule.sig}g"


def d3(quantity: str) -> str:
    """The rule as a d3 format, for a plotly hover template: ``f"%{{x:{d3('mean_rank')}}}"`` is ``%{x:.3f}``."""
    rule = QUANTITIES[quantity]
    if rule.percent:
        return f"{'+' if rule.signed else ''}.{rule.decimals or 0}%"
    return printf(quantity)[1:]


def quantity_of(column: Any, columns: Mapping[str, str] | None = None) -> str | None:
    """The quantity a column holds (None: not one of the registry's)."""
    return (columns or COLUMNS).get(str(column))


def round_frame(frame: pd.DataFrame, columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """A copy with every numeric column of a known quantity rounded (numbers stay numbers)."""
    out = frame.copy()
    for c in out.columns:
        q = quantity_of(c, columns)
        if q is None or not pd.api.types.is_numeric_dtype(out[c]) or pd.api.types.is_bool_dtype(out[c]):
            continue
        if pd.api.types.is_integer_dtype(out[c]):
            continue
        values = out[c].to_numpy(dtype=float)
        out[c] = np.array([rounded(v, q) for v in values], dtype=float)
    return out
