"""The row and column names of a score table: stripped, checked, sorted (:func:`clean_names`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.link_names import link_texts
from subsetsel_core.io.names import check_normalisation, short
from subsetsel_core.io.tables import line_numbers, row_numbers, text_codes
from subsetsel_core.io.validation import ReportBuilder


def sort_labels(values: pd.Series) -> list[str]:
    """Unique labels sorted numerically when they all are numbers, else as text."""
    uniq = pd.unique(values)
    num = pd.to_numeric(pd.Series(uniq), errors="coerce")
    if num.notna().all():
        order = np.argsort(num.to_numpy(), kind="stable")
        return [str(uniq[i]) for i in order]
    return sorted(str(u) for u in uniq)


def _same_once_read(raw: pd.Series, read: pd.Series, label: str, column: str) -> None:
    """Refuse two different cells that become one name once their markup is read (two links with one text)."""
    firsts: dict[str, str] = {}
    for before, after in zip(raw, read, strict=True):
        other = firsts.setdefault(after, before)
        if other != before:
            raise InputError(f"{label}: two {column} names are both '{short(after)}' once their links are read as "
                             f"text ('{short(other, 90)}' and '{short(before, 90)}'). Give them names of their own "
                             "(the link text is the name).")


def clean_names(
    series: pd.Series, label: str, column: str, rb: ReportBuilder
) -> tuple[np.ndarray, list[str]]:
    """Names stripped of surrounding spaces: each row's position in the sorted names, and them.

    The text rules run once per distinct cell (:func:`text_codes`), in order of first
    appearance, so numeric labels that tie ('1', '01') keep that order.
    """
    coded = text_codes(series)
    missing = np.zeros(len(series), dtype=bool)
    if coded is None:
        missing = series.isna().to_numpy()
        coded = text_codes(series.astype(str))
    if coded is None:  # pragma: no cover - astype(str) gives the string dtype
        raise TypeError(f"{label}: {column} names are not text")
    codes, distinct = coded
    raw = distinct.astype(str)
    stripped = raw.str.strip()
    out, _ = link_texts(stripped)
    empty = (out.eq("") | distinct.isna()).to_numpy()
    if empty.any() or missing.any():  # every distinct cell is some row's
        rows = series.index[empty[codes] | missing]
        raise InputError(
            f"{label}: empty {column} name in rows {row_numbers(rows)}. "
            "Fill in the names or delete those rows.",
            rows=line_numbers(rows),
        )
    per_cell = np.bincount(codes, minlength=len(distinct))
    changed = int(per_cell[(stripped != raw).to_numpy()].sum())
    if changed:
        rb.add("info", "whitespace", f"{label}: removed spaces around {changed} {column} names.")
    links = int((out != stripped).sum())  # distinct names (a melted table repeats each per cell)
    if links:
        _same_once_read(stripped, out, label, column)
        rb.add("info", "links", f"{label}: read {links} {column} names written with markup (HTML or markdown links, "
                                "bold markers, tags) as their text.")
    check_normalisation(out, label, column)
    name_codes, names = out.factorize()
    labels = sort_labels(pd.Series(names))
    position = {name: i for i, name in enumerate(labels)}
    sorted_codes = np.array([position[str(n)] for n in names], dtype=np.intp)
    return sorted_codes[name_codes][codes], labels
