"""The :class:`Benchmark`: a validated cube of scores (datasets, folds, models).

:func:`load_scores` reads a long or wide score table, as a :class:`ScoreFormat` describes
it, at the edge (the table parsing is :mod:`subsetsel_core.io.score_table`); everything
downstream sees one layout: ``scores[d, f, m]`` with datasets and models sorted by name.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io import score_cache
from subsetsel_core.io.encodings import encoding_note
from subsetsel_core.io.guess.directions import orient
from subsetsel_core.io.score_format import ScoreFormat
from subsetsel_core.io.score_table import score_cube
from subsetsel_core.io.tables import TableSource, max_bytes, read_table, source_label
from subsetsel_core.io.validation import ReportBuilder, ValidationReport
from subsetsel_core.ranks.ranking import mean_ranks, rank_sums
from subsetsel_core.ranks.table import RankTable, partial_rank_vectors
from subsetsel_core.text import rounding

MIN_DATASETS = 3
MIN_MODELS = 2


@dataclass(frozen=True, eq=False)
class Benchmark:
    """A validated benchmark.

    Attributes
    ----------
    scores : ndarray of shape (n_datasets, n_folds, n_models)
        Every cell finite.
    datasets : tuple of str
        Dataset names, sorted; the benchmark's dataset order.
    models : tuple of str
        Model names, sorted.
    folds : tuple of str
        Fold / seed / resample labels (``("0",)`` when the file had none).
    higher_is_better : bool
        Orientation of the scores.
    name : str
        Display name.
    report : ValidationReport
        What the loader found (sizes, dropped cells, ties, ...).
    flipped : tuple of str
        Datasets whose direction is the opposite of ``higher_is_better`` (leaderboards mix
        metrics); their scores are stored negated, so every dataset ranks by
        ``higher_is_better``. :meth:`to_long_frame` gives them back as in the file.
    partial : bool
        Loaded under the ``partial`` missing-score policy: cells may be NaN (gaps), and
        rankings follow PROTOCOL.md's ``partial`` rules (:class:`~subsetsel_core.ranks.table.RankTable`).
    """

    scores: np.ndarray
    datasets: tuple[str, ...]
    models: tuple[str, ...]
    folds: tuple[str, ...] = ("0",)
    higher_is_better: bool = True
    name: str = "benchmark"
    report: ValidationReport = field(default_factory=ValidationReport)
    flipped: tuple[str, ...] = ()
    partial: bool = False

    def __post_init__(self) -> None:
        s = np.asarray(self.scores, dtype=float)
        if s.ndim == 2:
            s = s[:, None, :]
        if s.shape != (len(self.datasets), len(self.folds), len(self.models)):
            raise InputError(
                f"scores have shape {s.shape} but there are {len(self.datasets)} datasets, "
                f"{len(self.folds)} folds and {len(self.models)} models."
            )
        if np.isinf(s).any() or (not self.partial and np.isnan(s).any()):
            raise InputError("scores contain NaN or infinite values; load them with load_scores.")
        s.setflags(write=False)
        object.__setattr__(self, "scores", s)

    @property
    def n_datasets(self) -> int:
        """Number of datasets n."""
        return len(self.datasets)

    @property
    def n_models(self) -> int:
        """Number of models M."""
        return len(self.models)

    @property
    def n_folds(self) -> int:
        """Number of folds F."""
        return len(self.folds)

    @cached_property
    def digest(self) -> str:
        """The benchmark's identity: SHA-256 (hex) of its scores, names, folds and directions.

        Two benchmarks with one digest rank the same models on the same datasets alike; a
        result stored with a benchmark (a workspace's evaluation and its permutation test)
        carries the digest of the benchmark it was run on and is restored only with it. The
        display name and the validation report are not part of it.
        """
        h = hashlib.sha256()
        h.update(json.dumps([list(self.datasets), list(self.models), list(self.folds), bool(self.higher_is_better),
                             list(self.flipped), bool(self.partial)], ensure_ascii=False).encode("utf-8"))
        cube = np.where(np.isnan(self.scores), np.nan, self.scores)  # one bit pattern for a gap
        h.update(np.ascontiguousarray(cube, dtype="<f8").tobytes())
        return h.hexdigest()

    @cached_property
    def has_gaps(self) -> bool:
        """Whether some (dataset, fold, model) scores are missing (``partial`` policy only)."""
        return bool(self.partial and np.isnan(self.scores).any())

    @cached_property
    def rank_sums(self) -> np.ndarray:
        """Exact rank sums, shape (n, M): twice the sum over folds of average ranks.

        Raises
        ------
        InputError
            The benchmark has gaps; use :attr:`rank_table`, which handles both cases.
        """
        if self.has_gaps:
            raise InputError(
                f"{self.name}: this needs a complete score table, and this one has gaps (the 'partial' "
                "policy); load it with the 'complete-block' policy instead.", field="missing")
        return rank_sums(self.scores, self.higher_is_better)

    @cached_property
    def rank_table(self) -> RankTable:
        """The per-dataset rank rows every ranking is computed from (complete or partial)."""
        if not self.has_gaps:
            return RankTable(self.rank_sums, self.n_models, self.n_folds, False)
        return RankTable.of(self.scores, self.higher_is_better)

    @cached_property
    def rank_vectors(self) -> np.ndarray:
        """Mean rank of each model on each dataset, shape (n, M); 1 = best.

        Under ``partial``: the rescaled ranks r_d, NaN where a model is undefined.
        """
        if self.has_gaps:
            return partial_rank_vectors(self.scores, self.higher_is_better)
        return mean_ranks(self.rank_sums, self.n_folds)

    def datasets_per_model(self) -> np.ndarray:
        """How many datasets rank each model, shape (M,) (n for every model of a complete table)."""
        out: np.ndarray = (~np.isnan(self.rank_vectors)).sum(axis=0)
        return out

    def leaderboard(self) -> pd.DataFrame:
        """Models ordered by their mean rank over all datasets (the reference ranking).

        Columns ``position, model, mean_rank, mean_score, wins``, and ``datasets`` (how many
        datasets rank the model) when the table has gaps.
        """
        table = self.rank_table
        mean_rank = table.means(table.reference(), self.n_datasets)
        rv = self.rank_vectors
        best = np.nanmin(rv, axis=1, keepdims=True)
        with np.errstate(invalid="ignore"):
            mean_score = np.nanmean(self.scores, axis=(0, 1)) if self.has_gaps else self.scores.mean(axis=(0, 1))
        df = pd.DataFrame(
            {
                "model": self.models,
                "mean_rank": mean_rank,
                "mean_score": mean_score,
                "wins": (rv == best).sum(0),
            }
        )
        if self.has_gaps:
            df["datasets"] = self.datasets_per_model()
        df = df.sort_values(["mean_rank", "model"], kind="stable").reset_index(drop=True)
        df.insert(0, "position", np.arange(1, len(df) + 1))
        return df

    def subset(self, datasets: list[str] | None = None, models: list[str] | None = None) -> Benchmark:
        """A new benchmark restricted to the given datasets and/or models."""
        di = [self.datasets.index(d) for d in (datasets or self.datasets)]
        mi = [self.models.index(m) for m in (models or self.models)]
        return Benchmark(
            self.scores[np.ix_(sorted(di), range(self.n_folds), sorted(mi))],
            tuple(self.datasets[i] for i in sorted(di)),
            tuple(self.models[i] for i in sorted(mi)),
            self.folds,
            self.higher_is_better,
            self.name,
            self.report,
            tuple(d for d in self.flipped if d in datasets) if datasets else self.flipped,
            self.partial,
        )

    def file_scores(self) -> np.ndarray:
        """The scores as in the file, shape (n, F, M): :attr:`scores` with the
        :attr:`flipped` datasets' scores negated back."""
        if not self.flipped:
            return self.scores
        sign = np.where(np.isin(np.asarray(self.datasets, dtype=object), list(self.flipped)), -1.0, 1.0)
        return self.scores * sign[:, None, None]

    def to_long_frame(self) -> pd.DataFrame:
        """The scores as a long table ``dataset, model, fold, score`` (as in the file: the
        scores of :attr:`flipped` datasets un-negated)."""
        d, f, m = np.meshgrid(
            np.arange(self.n_datasets), np.arange(self.n_folds), np.arange(self.n_models), indexing="ij"
        )
        return pd.DataFrame(
            {
                "dataset": np.asarray(self.datasets, dtype=object)[d.ravel()],
                "model": np.asarray(self.models, dtype=object)[m.ravel()],
                "fold": np.asarray(self.folds, dtype=object)[f.ravel()],
                "score": self.file_scores().ravel(),
            }
        )


def load_scores(
    source: TableSource,
    fmt: ScoreFormat | None = None,
    *,
    name: str | None = None,
    label: str | None = None,
    result_format: str | None = None,
    result_metric: str | Mapping[str, str] | None = None,
    cache: bool = False,
    **options: Any,
) -> Benchmark:
    """Load and validate a score table.

    Parameters
    ----------
    source : path, bytes, file-like or DataFrame
        Long table (one row per dataset, model and optional fold) or wide table
        (first column = dataset, one column per model).
    fmt : ScoreFormat, optional
        How to read the table (default: ``ScoreFormat()``, a long table with columns
        ``dataset, model[, fold], score``, higher is better).
    name : str, optional
        Display name (defaults to the file name).
    label : str, optional
        File name used in messages.
    result_format : {"auto", "lm-eval", "mteb", "eee", "table"}, optional
        Read ``source`` as a results folder, zip archive or JSON file of an evaluation
        framework (:func:`~subsetsel_core.io.result_folders.read_results`; ``"auto"``:
        when ``source`` is a folder, ``.json`` or ``.zip``, recognised from its content).
        None or ``"table"``: a score table.
    result_metric : str or mapping, optional
        The metric a results folder's scores are taken from
        (:func:`~subsetsel_core.io.result_folders.parse_metric_choice`; default: each
        format's main metric).
    cache : bool
        Keep ``source`` given as bytes in the score cache too (a benchmark folder's file, read by
        descriptor); a path on disk is always cached, an upload's bytes are not by default.
    **options
        Fields of :class:`ScoreFormat` that replace those of ``fmt``, e.g.
        ``load_scores(path, higher_is_better=False)``; ``wide=True`` stands for
        ``layout="wide"``.

    Returns
    -------
    Benchmark

    Raises
    ------
    InputError
        With a message naming the file, the column or rows and the fix; ``field`` names
        the setting that fixes it (see :data:`~subsetsel_core.errors.FIELDS`).
    """
    if "wide" in options:
        options["layout"] = "wide" if options.pop("wide") else "long"
    fmt = replace(fmt or ScoreFormat(), **options)
    label = source_label(source, label)
    source, fmt, found = _result_scores(source, fmt, result_format, result_metric, label)
    key = None if fmt.missing == "partial" or (isinstance(source, bytes) and not cache) else _cache_key(
        source, fmt, name, label)
    cached = None if key is None else score_cache.load(key)
    if cached is not None:
        benchmark = Benchmark(*cached[:-1])
        benchmark.__dict__["rank_sums"] = cached.rank_sums  # the cached_property's value, as stored
        return benchmark
    df = read_table(source, label=label, field="scores_file", object_text=True)
    rb = ReportBuilder()
    note = encoding_note(df, label)
    if note:
        rb.add("info", "encoding", note)
    cube, datasets, models, folds, dropped = score_cube(df, fmt, label, rb)
    cube, flipped = orient(cube, datasets, dropped, fmt, label, rb)
    columns_of = {"models-as-rows": "datasets", "wide": "models"}.get(fmt.layout)  # the table's columns hold these
    if len(datasets) < MIN_DATASETS:
        by_column = columns_of == "datasets"
        raise InputError(
            f"{label}: only {len(datasets)} dataset(s) left; at least {MIN_DATASETS} are needed to "
            "compare rankings. Check " + ("the columns set aside (one may be a task set aside by mistake)" if by_column
                                          else "the dataset column") + " and the missing-score policy.",
            field="missing" if dropped and fmt.missing in ("drop-datasets", "complete-block") else
            "keep_columns" if by_column else "dataset_column",
        )
    if len(models) < MIN_MODELS:
        by_column = columns_of == "models"
        raise InputError(
            f"{label}: only {len(models)} model(s) left; at least {MIN_MODELS} are needed to rank. "
            "Check " + ("the columns set aside (one may be a model set aside by mistake)" if by_column
                        else "the model column") + " and the missing-score policy.",
            field="missing" if dropped and fmt.missing in ("drop-models", "complete-block") else
            "keep_columns" if by_column else "model_column",
        )

    flat = np.sort(cube, axis=2)
    tied = (np.diff(flat, axis=2) == 0).any(axis=2)
    if tied.any():
        rb.add(
            "info",
            "ties",
            f"{rounding.text(tied.mean(), 'percent')} of the (dataset, fold) columns have tied scores; tied models get "
            "the average of their ranks.",
        )
    if (flat[:, :, 0] == flat[:, :, -1]).all():
        rb.add("warning", "all-tied", f"{label}: every model has the same score on every dataset; all rankings are ties.")
    rb.fact("datasets", len(datasets))
    rb.fact("models", len(models))
    rb.fact("folds", len(folds))
    rb.fact("orientation", "higher is better" if fmt.higher_is_better else "lower is better")
    benchmark = Benchmark(
        cube,
        tuple(datasets),
        tuple(models),
        tuple(folds),
        bool(fmt.higher_is_better),
        name or label,
        found + rb.build(),
        flipped,
        fmt.missing == "partial",
    )
    if key is not None:
        score_cache.store(key, score_cache.Entry(benchmark.scores, benchmark.datasets, benchmark.models,
                                                 benchmark.folds, benchmark.higher_is_better, benchmark.name,
                                                 benchmark.report, benchmark.flipped, benchmark.rank_sums))
    return benchmark


def _result_scores(
    source: TableSource, fmt: ScoreFormat, result_format: str | None, metric: str | Mapping[str, str] | None,
    label: str,
) -> tuple[TableSource, ScoreFormat, ValidationReport]:
    """A results folder as its long table, format and report; any other source unchanged."""
    if result_format in (None, "table"):
        return source, fmt, ValidationReport()
    from subsetsel_core.io.source_kind import is_result_source  # result folders only

    if result_format == "auto" and not is_result_source(source):
        return source, fmt, ValidationReport()
    from subsetsel_core.io.result_folders import read_results

    if not isinstance(source, str | Path | bytes):
        raise InputError(f"{label}: a results folder is read from its path or from zip or JSON bytes.",
                         field="scores_file")
    table = read_results(source, result_format, metric=metric, label=label)
    return table.frame, table.score_format(fmt), table.report()


def _cache_key(source: TableSource, fmt: ScoreFormat, name: str | None, label: str) -> str | None:
    """The :mod:`~subsetsel_core.io.score_cache` key of a score file on disk (None: not a file,
    unreadable, or the cache is off)."""
    if not isinstance(source, str | os.PathLike | bytes) or score_cache.cache_dir() is None:
        return None
    try:
        raw = source if isinstance(source, bytes) else Path(source).read_bytes()
    except OSError:
        return None  # read_table words the error
    return score_cache.entry_key(raw, [repr(fmt), name or "", label, str(max_bytes())])
