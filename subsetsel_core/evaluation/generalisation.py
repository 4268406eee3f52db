"""Will a subset chosen today hold for next year's models?

Strategies never see scores, so a subset does not depend on the models; what depends on
them is the evidence used to *choose* a strategy and representation. Here the models are
split into the ones used to judge (older, or a random half) and held-out ones (newest, or
the other half), and the protocol is run on each group separately with the same pools,
so users see whether the winner on today's models still beats random on the new ones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import Cancelled, InputError
from subsetsel_core.evaluation.permutation import p_phrase
from subsetsel_core.evaluation.protocol import iter_evaluate
from subsetsel_core.evaluation.result import BASELINE, EvaluationConfig, EvaluationResult
from subsetsel_core.io.names import describe_mismatch
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.text.rounding import text


@dataclass(frozen=True, eq=False)
class GeneralisationResult:
    """The protocol on the judging models and on the held-out models.

    Attributes
    ----------
    judge_models, new_models : tuple of str
    judged, held_out : EvaluationResult
    how : str
        How the split was made.
    """

    judge_models: tuple[str, ...]
    new_models: tuple[str, ...]
    judged: EvaluationResult
    held_out: EvaluationResult
    how: str

    def to_frame(self, metric: str = "spearman") -> pd.DataFrame:
        """Per entry: AUC and p vs random on the judging and on the held-out models, the gain
        over random on the held-out models (oriented: positive is better) and whether it holds
        there (p < 0.05 and a positive gain)."""
        sign = METRICS[metric].sign
        base = self.held_out.stats[BASELINE].auc[metric].mean if BASELINE in self.held_out.stats else None
        rows = []
        for e in self.judged.entries:
            a, b = self.judged.stats[e.key], self.held_out.stats[e.key]
            p_new = b.p_vs_random.get(metric)
            gain = None if base is None else sign * (b.auc[metric].mean - base)
            holds = (None if e.key == BASELINE or gain is None else
                     bool(p_new is not None and not pd.isna(p_new) and p_new < 0.05 and gain > 0))
            rows.append({
                "key": e.key,
                "auc_judged": a.auc[metric].mean, "p_judged": a.p_vs_random.get(metric),
                "auc_new": b.auc[metric].mean, "p_new": p_new, "gain_new": gain, "holds": holds,
            })
        return pd.DataFrame(rows)

    def best(self, metric: str = "spearman") -> pd.Series | None:
        """The :meth:`to_frame` row of the best entry on the judging models (None: only random)."""
        df = self.to_frame(metric)
        cand = df[df["key"] != BASELINE]
        if cand.empty:
            return None
        return cand.sort_values("auc_judged", ascending=not METRICS[metric].higher_is_better).iloc[0]

    def holds(self, metric: str = "spearman") -> bool:
        """Whether the best entry on the judging models still beats random on the held-out ones."""
        best = self.best(metric)
        return best is not None and bool(best["holds"])

    def verdict(self, metric: str = "spearman") -> str:
        """Does the best entry on the judging models still beat random on the new models?"""
        best = self.best(metric)
        if best is None:
            return "Only random was evaluated."
        gain, p = best["gain_new"], best["p_new"]
        return (f"Best on the {len(self.judge_models)} judging models: {best['key']}. On the "
                f"{len(self.new_models)} held-out models ({self.how}) it "
                + (f"still beats random (AUC {text(gain, 'gain')}, {p_phrase(p)})." if best["holds"] else
                   f"does not beat random significantly (AUC {text(gain, 'gain')}"
                   + ("" if p is None or pd.isna(p) else f", {p_phrase(p)}") + ")."))


DATE_COLUMNS: tuple[str, ...] = ("release_date", "date", "released", "release")


def read_release_dates(
    source: object, models: Sequence[str], *, date_column: str | None = None, label: str | None = None,
) -> dict[str, pd.Timestamp]:
    """Model release dates from a table with a ``model`` column and a date column.

    Parameters
    ----------
    source : path, bytes, file-like or DataFrame
        The table (anything :func:`subsetsel_core.io.tables.read_table` reads).
    models : sequence of str
        The benchmark's models; every one needs a date.
    date_column : str, optional
        The date column; by default the first of :data:`DATE_COLUMNS` present.
    label : str, optional
        File name for messages.

    Returns
    -------
    dict
        Model → release date, for exactly the benchmark's models.

    Raises
    ------
    InputError
        No model or date column, unreadable dates (rows named), models of the benchmark
        without a date, or rows naming no model of the benchmark (with close-name suggestions).
    """
    from subsetsel_core.io.tables import read_table, source_label

    name = source_label(source, label)
    t = read_table(source, label=label)
    cols = {str(c).strip().lower(): c for c in t.columns}
    if "model" not in cols:
        raise InputError(f"{name}: no 'model' column; the columns are {list(t.columns)}. Name the column of model "
                         "names 'model'.")
    if date_column is None:
        date_column = next((cols[c] for c in DATE_COLUMNS if c in cols), None)
        if date_column is None:
            raise InputError(f"{name}: no date column; the columns are {list(t.columns)}. Name it 'release_date'.")
    elif date_column not in t.columns:
        raise InputError(f"{name}: no '{date_column}' column; the columns are {list(t.columns)}.")
    names = t[cols["model"]].astype(str).str.strip()
    raw = t[date_column].astype(str).str.strip()
    when = pd.to_datetime(raw, errors="coerce", format="mixed")
    bad = [i for i in range(len(t)) if pd.isna(when.iloc[i])]
    if bad:
        rows = ", ".join(f"row {i + 2} ('{raw.iloc[i][:30]}')" for i in bad[:5])
        raise InputError(f"{name}: '{date_column}' is not a date in {len(bad)} row(s): {rows}. Write dates as "
                         "YYYY-MM-DD.")
    dates = dict(zip(names, when, strict=True))
    known = set(models)
    unknown = [m for m in dates if m not in known]
    missing = [m for m in models if m not in dates]
    if missing:
        hint = f" Rows that match no model: {describe_mismatch(unknown, list(models))}." if unknown else ""
        raise InputError(f"{name}: {len(missing)} of {len(models)} models have no release date "
                         f"({', '.join(missing[:5])}{' …' if len(missing) > 5 else ''}).{hint}")
    return {m: dates[m] for m in models}


def split_models(
    benchmark: Benchmark,
    *,
    new_models: Sequence[str] | None = None,
    release_dates: Mapping[str, object] | None = None,
    fraction: float = 0.5,
    seed: int = 0,
    rng: np.random.Generator | None = None,
) -> tuple[list[str], list[str], str]:
    """Split the models into judging and held-out groups.

    Explicit ``new_models`` win; else with ``release_dates`` the newest ``fraction``;
    else a random ``fraction``, drawn from ``rng`` (default: ``default_rng(seed)``).
    """
    models = list(benchmark.models)
    if new_models:
        unknown = [m for m in new_models if m not in models]
        if unknown:
            raise InputError(f"unknown models: {describe_mismatch(unknown, models)}.")
        new = list(new_models)
        how = "named"
    elif release_dates:
        dated = {m: pd.to_datetime(release_dates.get(m), errors="coerce") for m in models}
        missing = [m for m, d in dated.items() if pd.isna(d)]
        if missing:
            raise InputError(f"{len(missing)} models have no release date: {', '.join(missing[:5])}.")
        order = sorted(models, key=lambda m: (dated[m], m))
        n_new = max(2, int(round(fraction * len(models))))
        new = order[-n_new:]
        how = f"newest {n_new}, released from {dated[new[0]].date()}"
    else:
        gen = np.random.default_rng(seed) if rng is None else rng
        n_new = max(2, int(round(fraction * len(models))))
        new = sorted(gen.choice(models, n_new, replace=False).tolist())
        how = f"random {n_new} of {len(models)}, seed {seed}"
    judge = [m for m in models if m not in set(new)]
    if len(judge) < 2 or len(new) < 2:
        raise InputError("each group needs at least 2 models; change the split.")
    return judge, new, how


def evaluate_generalisation(
    benchmark: Benchmark,
    representations: Mapping[str, Representation] | Representation | Sequence[Representation],
    config: EvaluationConfig | None = None,
    *,
    new_models: Sequence[str] | None = None,
    release_dates: Mapping[str, object] | None = None,
    fraction: float = 0.5,
    seed: int = 0,
    progress: Callable[[int, int, str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> GeneralisationResult:
    """Run the protocol on the judging models and on the held-out models (same pools).

    Parameters
    ----------
    progress : callable, optional
        ``progress(done, total, what)`` after every batch of trials: trials done over both
        runs, ``2 × trials``, and which run ("models used to judge", "held-out models").
    should_stop : callable, optional
        Polled between batches; a stopped run raises :class:`~subsetsel_core.errors.Cancelled`.
    """
    judge, new, how = split_models(benchmark, new_models=new_models, release_dates=release_dates,
                                   fraction=fraction, seed=seed)
    cfg = config or EvaluationConfig()
    parts: list[EvaluationResult] = []
    for i, (models, what) in enumerate(((judge, "models used to judge"), (new, "held-out models"))):
        last = None
        for last in iter_evaluate(benchmark.subset(models=models), representations, cfg, should_stop=should_stop):
            if progress is not None:
                progress(i * cfg.trials + last.trials_done, 2 * cfg.trials, what)
        if last is None or not last.complete:
            raise Cancelled("the generalisation check was stopped before it finished.")
        parts.append(last)
    return GeneralisationResult(tuple(judge), tuple(new), parts[0], parts[1], how)
