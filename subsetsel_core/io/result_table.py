"""From a format's records to the long score table: one record per (model, task), one metric
per task, one direction per task, and everything set aside said.

:func:`build` is the second half of :func:`~subsetsel_core.io.result_folders.read_results`:

* several records of one model, task and metric (from several files) — the one of the
  greatest rank is kept, the format's documented rule (the latest run), with a warning
  naming both files; equal ranks are an error naming both files;
* the metric per task — as chosen, else the format's main metric wherever it is reported
  (a model without it has a gap, as mteb scores it NaN), else the task's first metric
  every model reports;
* a taken score that is not a finite number in range — an error naming file and key;
* the direction per task and where it came from (:data:`DIRECTION_FROM`): declared by
  the files, defined by the format (MTEB main scores), read from the metric name, or
  assumed (higher is better: no word of the name says; a warning says so); a bias score
  (neither direction is better) is set aside unless its metric was chosen; files that
  declare both directions for a task set it aside as undecided.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import pandas as pd

from subsetsel_core.errors import InputError
from subsetsel_core.io.names import did_you_mean
from subsetsel_core.io.result_records import Parsed, Record, metric_direction, names

ALL_TASKS = "*"
"""The key of a metric choice for a metric chosen for every dataset."""
DIRECTION_FROM = ("file", "format", "metric name", "chosen bias metric", "assumed")
"""Where a task's direction came from: declared by its files, defined by the format,
read from the metric name, a bias metric the user chose (its files' or lm-eval's
lower-is-better declaration), or assumed higher-is-better for want of evidence."""


class Built(NamedTuple):
    """What :func:`build` makes: the frame and, per task, how it was read."""

    frame: pd.DataFrame
    metrics: dict[str, str]
    available: dict[str, tuple[str, ...]]
    higher: dict[str, bool]
    direction_from: dict[str, str]
    notes: tuple[str, ...]
    warnings: tuple[str, ...]
    set_aside: tuple[tuple[str, str], ...]


class _Task(NamedTuple):
    records: dict[str, list[Record]]  # metric → its records (one per model)
    models: set[str]


def latest(records: Sequence[Record], label: str, kept: str) -> tuple[list[Record], list[str]]:
    """One record per (model, dataset, metric): the greatest rank; a warning per resolved
    (model, task) naming the files.

    Raises
    ------
    InputError
        Two records of the same model, task and metric with equal (or no) ranks.
    """
    best: dict[tuple[str, str, str], Record] = {}
    resolved: dict[tuple[str, str], tuple[str, str]] = {}
    for r in records:
        key = (r.model, r.dataset, r.metric)
        old = best.get(key)
        if old is None:
            best[key] = r
            continue
        if old.value == r.value and old.bad == r.bad:
            resolved[(r.model, r.dataset)] = (old.source, r.source)  # the same result twice
            continue
        if not old.rank or not r.rank or old.rank == r.rank:
            undated = [x.source for x in (old, r) if not x.rank]
            why = (f"{kept} decides, and {' and '.join(undated)} {'say' if len(undated) > 1 else 'says'} no time"
                   if undated else f"{kept} decides, and they do not differ in it")
            raise InputError(
                f"{label}: {r.model} has two results for task {r.dataset} ({old.source} and {r.source}) and "
                f"nothing tells which is the one ({why}). Remove one of the files.", field="scores_file")
        win, lose = (r, old) if r.rank > old.rank else (old, r)
        best[key] = win
        resolved[(r.model, r.dataset)] = (win.source, lose.source)
    warnings = []
    if resolved:
        pairs = sorted(resolved.items())
        warnings.append(f"{len(pairs)} (model, task) result(s) appear in several files; kept {kept}: "
                        + "; ".join(f"{m} {t}: {w} over {lo}" for (m, t), (w, lo) in pairs[:4])
                        + (f" … ({len(pairs)} in all)" if len(pairs) > 4 else "") + ".")
    return list(best.values()), warnings


def resolve_metric(want: str, metrics: Sequence[str]) -> str | None:
    """The key among ``metrics`` a chosen name means (``acc_norm`` → ``acc_norm,none``)."""
    if want in metrics:
        return want
    same = [m for m in metrics if m.split(",", 1)[0] == want]
    none = [m for m in same if m.endswith(",none")]
    found = none or same
    return found[0] if found else None


def _default(task: str, t: _Task, parsed: Parsed, label: str) -> str:
    if parsed.main_metric in t.records:
        return str(parsed.main_metric)  # the format's main metric; a model without it has a gap (as in mteb)
    common = [m for m, rs in t.records.items() if len(rs) == len(t.models)]
    if common:
        return common[0]
    by_metric = ", ".join(f"{m}: {names({r.model for r in rs}, 3)}" for m, rs in list(t.records.items())[:4])
    raise InputError(
        f"{label}: task '{task}' is reported under different metrics by different models ({by_metric}), so no "
        f"one metric covers every model. Choose its metric (e.g. {task}={next(iter(t.records))}); models "
        "without that metric then have a gap on this task.",
        field="score_column",
    )


def direction(records: Sequence[Record], metric: str, parsed: Parsed, chosen: bool, task: str = "TASK",
              ) -> tuple[bool | None, str]:
    """A task's direction (None: set aside) and where it came from, or why it is set aside."""
    declared = {r.higher_is_better for r in records if r.higher_is_better is not None}
    kind = metric_direction(metric)
    if kind == "bias" and not chosen:
        return None, (f"'{metric}' is a bias score: neither higher nor lower is better (an unbiased model "
                      f"sits in the middle). Choose the metric ({task}={metric}) to rank it as its files declare.")
    if len(declared) > 1:
        return None, f"its files declare '{metric}' both higher- and lower-is-better"
    if declared:
        return declared.pop(), "file"
    if parsed.main_is_higher and metric == parsed.main_metric:
        return True, "format"
    if kind == "bias":
        return False, "chosen bias metric"
    if kind in ("higher", "lower"):
        return kind == "higher", "metric name"
    return True, "assumed"


def _check_values(chosen: Sequence[Record], label: str) -> None:
    for r in chosen:
        if r.bad:
            raise InputError(f"{label}/{r.source}: '{r.key}' is {r.bad}, not a score. Fix the file or remove it "
                             "from the folder.", field="scores_file")
    fractions = [r for r in chosen if 0.0 <= r.value <= 1.0]
    if len(fractions) * 2 <= len(chosen) or len(fractions) < 2:
        return
    top = max(r.value for r in fractions)
    for r in chosen:  # most models' scores are fractions: one in 1–100 and ten times theirs is a percent, or damage
        if 1.0 < r.value <= 100.0 and r.value > 10.0 * top:  # (bits per byte of 0.9 and 1.1 are one scale)
            raise InputError(
                f"{label}/{r.source}: '{r.key}' is {r.value:g}, where {len(fractions)} of the task's {len(chosen)} "
                f"models' scores lie in 0–1 ({r.dataset}): on a 0–100 scale (a percent), or damaged, it cannot be "
                "compared with theirs. Write it as a fraction, or remove the file from the folder.", field="scores_file")


def build(parsed: Parsed, choice: Mapping[str, str], label: str) -> Built:
    """The score table of a format's records (see the module).

    Raises
    ------
    InputError
        Unresolvable duplicates, a chosen task or metric that does not exist, a task with
        no metric every model reports, or a taken score that is not a number in range.
    """
    records, warnings = latest(parsed.records, label, parsed.kept)
    tasks: dict[str, _Task] = {}
    for r in records:
        t = tasks.setdefault(r.dataset, _Task({}, set()))
        t.records.setdefault(r.metric, []).append(r)
        t.models.add(r.model)
    unknown = [k for k in choice if k != ALL_TASKS and k not in tasks]
    if unknown:
        raise InputError(f"{label}: no task '{unknown[0]}'{did_you_mean(unknown[0], list(tasks))} to choose a "
                         f"metric for. The tasks are {names(set(tasks), 8)}.", field="score_column")
    metrics: dict[str, str] = {}
    kept: list[str] = []
    for task, t in tasks.items():
        want = choice.get(task, choice.get(ALL_TASKS))
        key = resolve_metric(want, list(t.records)) if want else None
        if want and key is None and task in choice:
            raise InputError(f"{label}: task '{task}' has no metric '{want}'; its metrics are "
                             f"{', '.join(t.records)}.", field="score_column")
        if key is None and want:
            kept.append(task)
        metrics[task] = key or _default(task, t, parsed, label)
    notes = [f"read {parsed.n_files} {parsed.title} result file(s): {len(tasks)} task(s), "
             f"{len({r.model for r in records})} model(s)."] + list(parsed.notes)
    notes.append(f"metric per task: {parsed.rule}, unless chosen." if not choice else
                 f"metric per task: as chosen, else {parsed.rule}.")
    if kept:
        notes.append(f"{len(kept)} task(s) do not report '{choice[ALL_TASKS]}' and keep their default metric: "
                     f"{names(set(kept))}.")
    higher: dict[str, bool] = {}
    source: dict[str, str] = {}
    aside = list(parsed.set_aside)
    for task, t in tasks.items():
        chosen = task in choice or (ALL_TASKS in choice and task not in kept)
        hib, where = direction(t.records[metrics[task]], metrics[task], parsed, chosen, task)
        if hib is None:
            aside.append((task, where))
            continue
        higher[task], source[task] = hib, where
    dropped = [task for task in tasks if task not in higher]
    if dropped:
        warnings.append(f"set aside {len(dropped)} task(s) whose direction is undecided: "
                        + "; ".join(f"{t} ({why})" for t, why in aside if t in dropped)[:600])
    assumed = sorted(t for t, s in source.items() if s == "assumed")
    if assumed:
        warnings.append(f"assumed higher is better for {len(assumed)} task(s) whose metric name does not say "
                        f"({names(assumed)}: metric {', '.join(sorted({metrics[t] for t in assumed})[:3])}); "
                        "choose another metric if that is wrong.")
    rows: list[tuple[str, str, float]] = []
    unlike: list[tuple[str, str]] = []
    limited: set[str] = set()
    for task in higher:
        t = tasks[task]
        chosen_records = t.records[metrics[task]]
        _check_values(chosen_records, label)
        if parsed.settings:
            unlike += _unlike_runs(task, chosen_records, parsed.settings)
            limited |= {r.dataset for r in chosen_records if "limit " in parsed.settings.get((r.source, r.dataset), "")}
        rows += [(r.dataset, r.model, r.value) for r in chosen_records]
        rows += [(task, m, float("nan")) for m in sorted(t.models - {r.model for r in chosen_records})]  # gaps
    if unlike:
        by_how: dict[str, list[str]] = {}
        for task, how in unlike:
            by_how.setdefault(how, []).append(task)
        shown = "; ".join(f"{names(set(ts), 3)}: {how}" for how, ts in list(by_how.items())[:4])
        warnings.append(f"{len(unlike)} task(s) were run differently for different models, so their scores are not "
                        f"comparable — {shown}{' …' if len(by_how) > 4 else ''}. Give runs of one setting per task "
                        "(or set those tasks aside).")
    if limited:  # lm-eval's --limit: "SHOULD ONLY BE USED FOR TESTING"; each score is of the task's first examples
        warnings.append(f"{len(limited)} task(s) were run with a limit on their examples ({names(limited, 3)}): each "
                        "score is of the first examples only, which the harness means for testing; the ranking may not "
                        "be the task's. Give runs without --limit.")
    frame = pd.DataFrame(rows, columns=["dataset", "model", "score"])
    available = {task: tuple(tasks[task].records) for task in higher}
    return Built(frame, {t: metrics[t] for t in higher}, available, higher, source, tuple(notes),
                 tuple(warnings), tuple(aside))


def _unlike_runs(task: str, records: Sequence[Record],
                 settings: Mapping[tuple[str, str], str]) -> list[tuple[str, str]]:
    """``[("hellaswag", "10-shot for m1; 0-shot for m2, m3")]`` when the task's runs differ in their recorded
    setting, else []."""
    by_setting: dict[str, list[str]] = {}
    for r in records:
        if said := settings.get((r.source, r.dataset), ""):  # a run whose file does not say is not compared
            by_setting.setdefault(said, []).append(r.model)
    if len(by_setting) < 2:
        return []
    ordered = sorted(by_setting.items(), key=lambda kv: len(kv[1]))
    return [(task, "; ".join(f"{s} for {names(set(ms), 3)}" for s, ms in ordered))]


def as_plain(value: Any) -> Any:
    """A value of :class:`Built` as plain JSON (tuples as lists)."""
    if isinstance(value, tuple | list):
        return [as_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): as_plain(v) for k, v in value.items()}
    return value
