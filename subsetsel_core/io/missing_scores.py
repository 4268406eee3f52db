"""The missing-score policies (PROTOCOL.md, "Missing scores"): what a gap in the score cube does.

``error`` names the gaps and the policies; ``drop-models`` / ``drop-datasets`` remove every
incomplete model or dataset; ``complete-block`` removes the most incomplete one at a time
until the table is complete; ``partial`` keeps the gaps (the rankings handle them, see
:mod:`subsetsel_core.ranks.table`).
"""

from __future__ import annotations

import numpy as np

from subsetsel_core.errors import InputError
from subsetsel_core.io.validation import ReportBuilder


def handle_missing(
    cube: np.ndarray,
    datasets: list[str],
    models: list[str],
    folds: list[str],
    nan: np.ndarray,
    missing: str,
    label: str,
    rb: ReportBuilder,
) -> tuple[np.ndarray, list[str], list[str], list[str]]:
    """Apply the missing-score policy ``missing`` to a cube (n, F, M) with gaps ``nan``.

    Returns
    -------
    cube, datasets, models, dropped
        What is left, and the names the policy removed.

    Raises
    ------
    InputError
        ``error``; ``partial`` with a model no dataset can rank (``field="missing"``).
    """
    n_missing = int(nan.sum())
    per_model = nan.sum(axis=(0, 1))
    per_dataset = nan.sum(axis=(1, 2))
    if missing == "error":
        cells = np.argwhere(nan)[:5]
        ex = "; ".join(
            f"dataset '{datasets[d]}', model '{models[m]}'"
            + (f", fold '{folds[f]}'" if len(folds) > 1 else "")
            for d, f, m in cells
        )
        bad_models = [models[i] for i in np.flatnonzero(per_model)]
        bad_datasets = [datasets[i] for i in np.flatnonzero(per_dataset)]
        raise InputError(
            f"{label}: {n_missing} of {nan.size} (dataset, model{', fold' if len(folds) > 1 else ''}) "
            f"scores are missing (e.g. {ex}). They touch {len(bad_models)} model(s) "
            f"({', '.join(bad_models[:5])}{' …' if len(bad_models) > 5 else ''}) and "
            f"{len(bad_datasets)} dataset(s). Add the missing scores, or choose a missing-score "
            f"policy: 'partial' keeps every model and dataset, 'complete-block' drops the most incomplete "
            f"rows and columns until the table is complete, 'drop-models' removes the {len(bad_models)} "
            f"incomplete models, 'drop-datasets' removes the {len(bad_datasets)} incomplete datasets.",
            field="missing",
        )
    if missing == "partial":
        return _keep_gaps(cube, datasets, models, nan, label, rb)
    if missing == "complete-block":
        drop_d, drop_m = complete_block(nan)
        dropped = [datasets[i] for i in drop_d] + [models[i] for i in drop_m]
        keep_d = np.setdiff1d(np.arange(len(datasets)), drop_d)
        keep_m = np.setdiff1d(np.arange(len(models)), drop_m)
        cube = cube[np.ix_(keep_d, np.arange(len(folds)), keep_m)]
        rb.add(
            "warning",
            "dropped",
            f"{label}: {n_missing} scores were missing; 'complete-block' dropped {len(drop_d)} dataset(s)"
            f"{_listed([datasets[i] for i in drop_d])} and {len(drop_m)} model(s)"
            f"{_listed([models[i] for i in drop_m])}, leaving a complete {len(keep_d)} × {len(keep_m)} table.",
        )
        return cube, [datasets[i] for i in keep_d], [models[i] for i in keep_m], dropped
    if missing == "drop-models":
        keep = per_model == 0
        dropped = [models[i] for i in np.flatnonzero(~keep)]
        cube = cube[:, :, keep]
        models = [m for m, k in zip(models, keep, strict=True) if k]
        what = "models"
    else:
        keep = per_dataset == 0
        dropped = [datasets[i] for i in np.flatnonzero(~keep)]
        cube = cube[keep]
        datasets = [d for d, k in zip(datasets, keep, strict=True) if k]
        what = "datasets"
    rb.add(
        "warning",
        "dropped",
        f"{label}: {n_missing} scores were missing; dropped {len(dropped)} {what} with gaps: "
        f"{', '.join(dropped[:20])}{' …' if len(dropped) > 20 else ''}.",
    )
    return cube, datasets, models, dropped


def _listed(names: list[str], shown: int = 10) -> str:
    if not names:
        return ""
    return f" ({', '.join(names[:shown])}{' …' if len(names) > shown else ''})"


def complete_block(nan: np.ndarray) -> tuple[list[int], list[int]]:
    """The ``complete-block`` policy: which datasets and models to drop (PROTOCOL.md).

    Repeatedly drop the model or the dataset with the largest share of missing cells
    among the remaining ones (a dataset on a tie; among datasets, or among models, the
    first in order) until no cell is missing.

    Parameters
    ----------
    nan : ndarray of bool, shape (n, F, M)
        Missing cells.

    Returns
    -------
    datasets, models : list of int
        Positions dropped, in the order they were dropped.
    """
    alive_d = np.ones(nan.shape[0], bool)
    alive_m = np.ones(nan.shape[2], bool)
    miss = nan.sum(axis=1).astype(np.int64)  # (n, M) missing folds per (dataset, model)
    folds = nan.shape[1]
    drop_d: list[int] = []
    drop_m: list[int] = []
    while True:
        block = miss[np.ix_(alive_d, alive_m)]
        if not block.any():
            return drop_d, drop_m
        # shares as exact fractions: missing / (folds × cells) compared by cross-multiplying
        d_miss, m_miss = block.sum(axis=1), block.sum(axis=0)
        d_cells, m_cells = folds * int(alive_m.sum()), folds * int(alive_d.sum())
        di, mi = int(np.argmax(d_miss)), int(np.argmax(m_miss))
        if int(d_miss[di]) * m_cells >= int(m_miss[mi]) * d_cells:
            pos = int(np.flatnonzero(alive_d)[di])
            alive_d[pos] = False
            drop_d.append(pos)
        else:
            pos = int(np.flatnonzero(alive_m)[mi])
            alive_m[pos] = False
            drop_m.append(pos)


def unranked_models(nan: np.ndarray) -> np.ndarray:
    """Positions of the models no (dataset, fold) with two or more models ranks (``nan``: (n, F, M) gaps)."""
    present = ~nan
    rankable = present & (present.sum(axis=2, keepdims=True) >= 2)
    out: np.ndarray = np.flatnonzero(~rankable.any(axis=(0, 1)))
    return out


def _keep_gaps(
    cube: np.ndarray, datasets: list[str], models: list[str], nan: np.ndarray, label: str, rb: ReportBuilder,
) -> tuple[np.ndarray, list[str], list[str], list[str]]:
    """The ``partial`` policy: keep every model and dataset with their gaps; refuse a model that no
    dataset can rank; warn about a dataset on which no fold ranks two models (it contributes nothing)."""
    present = ~nan
    rankable = present & (present.sum(axis=2, keepdims=True) >= 2)  # (n, F, M)
    useless = [datasets[i] for i in np.flatnonzero(~rankable.any(axis=(1, 2)))]
    if useless:
        rb.add("warning", "ranks-nothing",
               f"{label}: {len(useless)} dataset(s) have fewer than two models scored in every fold, so they rank "
               f"no model{_listed(useless)}: they stay in the benchmark (and can be chosen) but add nothing to any "
               "ranking. Add their scores, or remove them from the table.")
    dropped: list[str] = []
    unranked = [models[i] for i in unranked_models(nan)]
    if unranked:
        raise InputError(
            f"{label}: {len(unranked)} model(s) have no score on any dataset that ranks two or more models"
            f"{_listed(unranked)}; the 'partial' policy needs at least one. Add their scores, remove them, "
            "or choose the 'drop-models' policy.",
            field="missing",
        )
    per_model = (~rankable.any(axis=1)).sum(axis=0)  # datasets missing per model
    gappy = int((per_model > 0).sum())
    rb.add(
        "info",
        "partial",
        f"{label}: {int(nan.sum())} of {nan.size} scores are missing; 'partial' keeps every model and dataset: "
        f"{gappy} of {len(models)} model(s) are ranked on fewer than all {len(datasets)} datasets "
        f"(fewest: {len(datasets) - int(per_model.max())}); each dataset ranks the models it has, rescaled to "
        "1…M, and the metrics use the models both rankings cover.",
    )
    rb.fact("missing scores", int(nan.sum()))
    return cube, datasets, models, dropped
