"""Safe exports: CSV cells a spreadsheet would execute are neutralised."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

_DANGEROUS = ("=", "+", "-", "@", "\t", "\r")


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def safe_cell(value: Any) -> Any:
    """Prefix a text cell with ``'`` when a spreadsheet would run it as a formula.

    Numbers (and text that is a plain number, like ``-0.5``) are left as they are.
    """
    if isinstance(value, str) and value.startswith(_DANGEROUS) and not _is_number(value):
        return "'" + value
    return value


def safe_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Copy of ``df`` with every text cell and column name neutralised."""
    out = df.copy()
    for c in out.columns:
        if out[c].dtype == object or pd.api.types.is_string_dtype(out[c]):
            out[c] = out[c].map(safe_cell)
    out.columns = [safe_cell(str(c)) for c in out.columns]
    return out


def subset_csv(df: pd.DataFrame, metadata: dict[str, Any] | None = None) -> str:
    """CSV text of a subset table; ``metadata`` goes into leading ``# key: value`` lines."""
    head = ""
    if metadata:
        head = "".join(f"# {k}: {json.dumps(v, ensure_ascii=False)}\n" for k, v in metadata.items())
    return head + safe_frame(df).to_csv(index=False)
