"""Tabular descriptors: numeric, categorical (one-hot) and text columns to a matrix."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.numeric_cells import parse_numbers, refusal
from subsetsel_core.io.validation import ReportBuilder
from subsetsel_core.representations.text import tfidf_svd
from subsetsel_core.strategies.base import column_scale, standardize
from subsetsel_core.text import rounding

ColumnKind = Literal["numeric", "categorical", "text"]
MAX_CATEGORIES = 50


def column_kind(values: pd.Series) -> ColumnKind:
    """Kind of a descriptor column.

    Numbers (or text cells that all parse as numbers) are ``numeric``; text with few
    distinct values (at most half the rows and at most 50) is ``categorical``; other text
    is ``text`` (free descriptions).
    """
    return _classify(values)[0]


def _classify(values: pd.Series, label: str = "descriptors") -> tuple[ColumnKind, pd.Series | None]:
    """:func:`column_kind` and, for a numeric column, its parsed numbers (one parse).

    Raises
    ------
    InputError
        When the column's numbers cannot be read safely (``1,250`` with no decimal point
        anywhere, mixed units or percent signs): a column of numbers is never silently
        taken for categories.
    """
    num, bad, notes = parse_numbers(values)
    err = refusal(values, bad, notes, label, str(values.name))
    if err is not None:
        raise err
    if pd.api.types.is_bool_dtype(values) or pd.api.types.is_numeric_dtype(values):
        return "numeric", num
    if num.notna().any() and not bad.any():
        return "numeric", num
    s = values.dropna().astype(str).str.strip()
    s = s[s != ""]
    nu = s.nunique()
    if nu <= MAX_CATEGORIES and nu <= max(2, len(values) // 2):
        return "categorical", None
    return "text", None


def encode_tabular(
    table: pd.DataFrame,
    *,
    label: str = "descriptors",
    text: Literal["tfidf", "drop"] = "tfidf",
    text_components: int = 16,
    log_columns: Sequence[str] | Literal["auto"] = (),
    pca_variance: float | None = None,
    report: ReportBuilder | None = None,
    seed: int = 0,
) -> tuple[np.ndarray, list[str]]:
    """Encode a descriptor table (rows = datasets) as a numeric matrix.

    Numeric columns: NaN median-imputed (reported), optional ``log1p`` of count-like
    columns (``"auto"``: non-negative columns whose max/median ratio exceeds 100).
    Categorical columns: one-hot (a missing value is its own category). Text columns:
    TF-IDF + SVD (:func:`tfidf_svd`) or dropped. Constant columns are dropped (reported).
    Optional PCA on z-scored columns keeping ``pca_variance`` of the variance.

    Parameters
    ----------
    table : DataFrame of shape (n, c)
        Descriptor columns only (dataset names in the index).
    label : str
        Name used in messages.

    Returns
    -------
    X : ndarray of shape (n, p)
    feature_names : list of str, length p

    Raises
    ------
    InputError
        When no usable column is left.
    """
    rb = report if report is not None else ReportBuilder()
    n = len(table)
    blocks: list[np.ndarray] = []
    names: list[str] = []
    for col in table.columns:
        values = table[col]
        kind, v = _classify(values, label)
        if v is not None:
            if v.isna().all():
                rb.add("warning", "empty-column", f"{label}: column '{col}' is empty; dropped.")
                continue
            n_nan = int(v.isna().sum())
            if n_nan:
                med = float(v.median())
                rb.add(
                    "warning",
                    "imputed",
                    f"{label}: column '{col}' has {n_nan} missing value(s); filled with the median "
                    f"({rounding.text(med, 'descriptor')}).",
                )
                v = v.fillna(med)
            x = v.to_numpy(dtype=float)
            if not np.isfinite(x).all():
                raise InputError(
                    f"{label}: column '{col}' has infinite values. Replace them with finite numbers "
                    "or leave the cells empty."
                )
            blocks.append(x[:, None])
            names.append(str(col))
        elif kind == "categorical":
            s = values.astype(object).where(values.notna(), "missing").astype(str).str.strip()
            cats = sorted(s.unique())
            onehot = (s.to_numpy()[:, None] == np.asarray(cats)[None, :]).astype(float)
            blocks.append(onehot)
            names.extend(f"{col}={c}" for c in cats)
        elif text == "tfidf":
            z = tfidf_svd(values.fillna("").astype(str).tolist(), text_components, seed=seed)
            blocks.append(z)
            names.extend(f"{col}_svd{i}" for i in range(z.shape[1]))
            rb.add("info", "text", f"{label}: text column '{col}' embedded with TF-IDF + SVD ({z.shape[1]} dims).")
        else:
            rb.add("info", "text", f"{label}: text column '{col}' not used (text embedding off).")
    X = np.hstack(blocks) if blocks else np.zeros((n, 0))
    if log_columns:
        X = _log_scale(X, names, log_columns, rb, label)
    const = X.max(axis=0) == X.min(axis=0) if X.shape[1] else np.zeros(0, bool)
    if const.any():
        dropped = [nm for nm, c in zip(names, const, strict=True) if c]
        rb.add(
            "warning",
            "constant",
            f"{label}: {len(dropped)} constant column(s) dropped: {', '.join(dropped[:10])}"
            f"{' …' if len(dropped) > 10 else ''}.",
        )
        X = X[:, ~const]
        names = [nm for nm, c in zip(names, const, strict=True) if not c]
    if X.shape[1] == 0:
        raise InputError(
            f"{label}: no usable descriptor column (all are empty, constant or unused text). "
            "Add numeric or categorical columns, or turn on the text embedding."
        )
    if pca_variance is not None:
        X, names = _pca(X, pca_variance, seed)
        rb.add("info", "pca", f"{label}: PCA kept {X.shape[1]} components ({rounding.text(pca_variance, 'percent')} of variance).")
    return X, names


def _log_scale(
    X: np.ndarray, names: list[str], log_columns: Sequence[str] | str, rb: ReportBuilder, label: str
) -> np.ndarray:
    X = X.copy()
    if log_columns == "auto":
        scale = column_scale(X)  # exact powers of two: no overflow near the float limits
        med = np.median(np.abs(X) / scale, axis=0) * scale
        chosen = [
            i for i in range(X.shape[1])
            if X[:, i].min() >= 0 and X[:, i].max() > 100 * max(med[i], 1e-12) and X[:, i].max() > 1
        ]
    else:
        missing = [c for c in log_columns if c not in names]
        if missing:
            raise InputError(f"{label}: cannot log-scale unknown column(s) {missing}.")
        chosen = [names.index(c) for c in log_columns]
    for i in chosen:
        if X[:, i].min() < 0:
            raise InputError(f"{label}: column '{names[i]}' has negative values; it cannot be log-scaled.")
        X[:, i] = np.log1p(X[:, i])
    if chosen:
        rb.add("info", "log", f"{label}: log1p applied to {', '.join(names[i] for i in chosen)}.")
    return X


def _pca(X: np.ndarray, variance: float, seed: int) -> tuple[np.ndarray, list[str]]:
    from sklearn.decomposition import PCA

    if not 0 < variance <= 1:
        raise InputError(f"PCA variance must be in (0, 1], got {variance}.")
    Z = standardize(X)
    pca = PCA(n_components=variance if variance < 1 else None, svd_solver="full", random_state=seed)
    Y = pca.fit_transform(Z)
    return Y, [f"pc{i + 1}" for i in range(Y.shape[1])]
