"""Reading datasets in the UCR time-series archive layout."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np

from subsetsel_core.errors import InputError

__all__ = ["read_ucr_folder"]

_UCR_SUFFIXES = (".tsv", ".txt", "")
_SPLIT_RE = re.compile(r"[\s,]+")


def _parse_labels(tokens: list[str]) -> np.ndarray:
    try:
        numbers = np.array([float(t) for t in tokens])
    except ValueError:
        return np.array(tokens, dtype=object)
    if np.all(np.isfinite(numbers)) and np.all(numbers == np.round(numbers)):
        return numbers.astype(np.int64)
    return numbers


def _read_ucr_file(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Read one UCR file: label first, then the values; tab, comma or space separated."""
    labels: list[str] = []
    rows: list[np.ndarray] = []
    text = path.read_text(encoding="utf-8")
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        tokens = _SPLIT_RE.split(line)
        try:
            values = np.array([float(t) for t in tokens[1:]])
        except ValueError as exc:
            raise InputError(
                f"{path}, line {lineno}: {exc}; a UCR file has the class label first and "
                "then numbers (NaN for padding), separated by tabs, commas or spaces."
            ) from exc
        labels.append(tokens[0])
        rows.append(values)
    if not rows:
        raise InputError(f"{path} holds no series; check the file or remove it.")
    width = max(r.size for r in rows)
    X = np.full((len(rows), width), np.nan)
    for i, r in enumerate(rows):
        X[i, : r.size] = r
    return X, _parse_labels(labels)


def _find_split_file(root: Path, name: str, split: str) -> Path | None:
    for folder in (root / name, root):
        for suffix in _UCR_SUFFIXES:
            p = folder / f"{name}_{split}{suffix}"
            if p.is_file():
                return p
    return None


def read_ucr_folder(
    root: str | Path,
    *,
    split: Literal["train", "test", "all"] = "train",
    names: Sequence[str] | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Read datasets in the UCR archive layout.

    Looks for ``<root>/<Name>/<Name>_TRAIN.tsv`` and ``..._TEST.tsv`` (the 2018 archive),
    also accepting ``.txt`` or no suffix (older archives) and the files directly in
    ``root``. Each line holds the class label and then the series values, separated by tabs,
    commas or spaces; rows may differ in length and may contain ``NaN``.

    Parameters
    ----------
    root : str or Path
        Folder holding the datasets.
    split : {"train", "test", "all"}, default "train"
        Which file to read; ``"all"`` concatenates train then test.
    names : sequence of str, optional
        Datasets to read; default every dataset found, sorted by name.

    Returns
    -------
    dict[str, tuple[ndarray, ndarray]]
        ``{name: (X, y)}`` with ``X`` of shape ``(n_series, max_length)`` (NaN-padded,
        float64) and ``y`` of shape ``(n_series,)``: int64 when every label is an integer
        (``"1"``, ``"-1"``, ``"1.0000000e+00"``), float64 when numeric, otherwise object.

    Raises
    ------
    InputError
        ``root`` missing, no dataset found, a requested name missing, or a malformed file.
    """
    root = Path(root)
    if split not in ("train", "test", "all"):
        raise InputError(f"split must be 'train', 'test' or 'all', got {split!r}.")
    if not root.is_dir():
        raise InputError(
            f"UCR folder {root} does not exist; pass the folder that holds the datasets."
        )
    splits = ["TRAIN", "TEST"] if split == "all" else [split.upper()]
    if names is None:
        found = set()
        for p in list(root.glob("*_TRAIN*")) + list(root.glob("*/*_TRAIN*")):
            stem = p.name.split("_TRAIN")[0]
            if p.name[len(stem) + len("_TRAIN") :] in _UCR_SUFFIXES and p.is_file():
                found.add(stem)
        if not found:
            raise InputError(
                f"no UCR dataset found in {root}: expected files like "
                f"{root}/<Name>/<Name>_TRAIN.tsv (label first, tab-separated values)."
            )
        names = sorted(found)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name in names:
        parts = []
        for s in splits:
            path = _find_split_file(root, name, s)
            if path is None:
                raise InputError(
                    f"dataset '{name}': no {name}_{s}.tsv (or .txt) in {root / name} or {root}."
                )
            parts.append(_read_ucr_file(path))
        if len(parts) == 1:
            out[name] = parts[0]
        else:
            width = max(p[0].shape[1] for p in parts)
            X = np.vstack(
                [
                    np.pad(p[0], ((0, 0), (0, width - p[0].shape[1])), constant_values=np.nan)
                    for p in parts
                ]
            )
            y = np.concatenate([p[1].astype(object) for p in parts])
            out[name] = (X, _parse_labels([str(v) for v in y]))
    return out
