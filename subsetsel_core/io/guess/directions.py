"""Direction per dataset: leaderboards mix metrics (accuracy on one dataset, RMSE on the next).

A :class:`~subsetsel_core.io.score_format.ScoreFormat` may list datasets whose direction
differs from its ``higher_is_better``; :func:`orient` negates their scores, so that every
dataset of the cube ranks by the one direction the :class:`~subsetsel_core.benchmark.Benchmark`
holds, and every rank, rank sum and metric downstream is right without knowing about it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from subsetsel_core.errors import InputError
from subsetsel_core.io.names import describe_mismatch
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.io.validation import ReportBuilder


def orient(
    cube: np.ndarray,
    datasets: Sequence[str],
    dropped: Sequence[str],
    fmt: ScoreFormat,
    label: str,
    rb: ReportBuilder,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """Negate the scores of the datasets whose direction is the opposite of the format's.

    Parameters
    ----------
    cube : ndarray of shape (n_datasets, n_folds, n_models)
    datasets : sequence of str
        The cube's datasets.
    dropped : sequence of str
        Names the missing-score policy removed (a direction may name them).
    fmt : ScoreFormat
        With ``higher_is_better`` and the per-dataset lists.
    label : str
        File name used in messages.
    rb : ReportBuilder
        Receives a note of the datasets turned.

    Returns
    -------
    cube : ndarray
        A copy with those datasets' scores negated (the input when there are none).
    flipped : tuple of str
        Those datasets, in the cube's order.

    Raises
    ------
    InputError
        A listed name that is not a dataset of the table (``field="dataset_directions"``,
        with close-name suggestions).
    """
    listed = [*fmt.lower_is_better_datasets, *fmt.higher_is_better_datasets]
    known = set(datasets) | set(dropped)
    unknown = [d for d in listed if d not in known]
    if unknown:
        raise InputError(
            f"{label}: the per-dataset directions name {len(unknown)} dataset(s) that are not in the scores: "
            f"{describe_mismatch(unknown, list(datasets))}. Use the dataset names of the score table.",
            field="dataset_directions",
        )
    opposite = set(fmt.opposite_datasets())
    flipped = tuple(d for d in datasets if d in opposite)
    if not flipped:
        return cube, ()
    idx = [i for i, d in enumerate(datasets) if d in opposite]
    out = np.array(cube, dtype=float)
    out[idx] = -out[idx]
    other = "lower" if fmt.higher_is_better else "higher"
    rb.add(
        "info",
        "direction",
        f"{label}: {other} is better on {len(flipped)} dataset(s) ({', '.join(flipped[:10])}"
        f"{' …' if len(flipped) > 10 else ''}); their scores are negated so that every dataset ranks "
        f"{'higher' if fmt.higher_is_better else 'lower'}-is-better.",
    )
    return out, flipped
