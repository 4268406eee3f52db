"""Which columns can hold the row names, by their cells: not links (SWE-bench's ``site``), yes/no flags (its
``os_model``) or commit hashes (Open LLM's ``Model sha``); and which hold names shaped like models' (``org/model``)."""

from __future__ import annotations

import pandas as pd

from subsetsel_core.io.guess.header_words import looks_like_model
from subsetsel_core.io.guess.layout import is_flag


def _filled(values: pd.Series) -> pd.Series:
    cells = values.astype(str).str.strip()
    return cells[cells != ""]


def can_name_rows(values: pd.Series) -> bool:
    """Whether a column's cells can be the rows' names: not every one a web address, a yes or a no, or a commit
    hash (seven to forty hexadecimal digits)."""
    cells = _filled(values)
    if len(cells) == 0:
        return True
    links = bool(cells.str.match(r"(?:https?|ftp)://\S+$").all())
    hashes = bool(cells.str.fullmatch(r"[0-9a-f]{7,40}").all()) and bool(cells.str.contains(r"[a-f]").any())
    return not (links or hashes or is_flag(values))


def model_like(values: pd.Series, share: float = 0.8) -> bool:
    """Whether most of a column's cells are shaped like models' names (``org/model``, ``llama-2-7b``)."""
    cells = _filled(values)
    return len(cells) > 0 and float(cells.map(looks_like_model).mean()) >= share
