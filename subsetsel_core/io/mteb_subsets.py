"""The splits and subsets each MTEB task is scored on — the same for every model — and the
records they give (see :mod:`~subsetsel_core.io.mteb_results` for the rule)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from subsetsel_core.io import mteb_tasks
from subsetsel_core.io.result_records import Record, names, not_a_number, reads_as_number, score_of

Pair = tuple[str, str]
"""A (split, hf_subset) of a task file."""


class TaskFile(NamedTuple):
    """One MTEB task file as read: its model, revision, task and subsets."""

    model: str
    revision: str
    task: str
    path: str
    entries: dict[Pair, tuple[Mapping[str, Any], str]]  # (split, subset) → (scores, key in the file)
    version: tuple[int, ...]

MAIN = "main_score"
_NOT_METRICS = frozenset({"hf_subset", "languages", "evaluation_time", "kg_co2_emissions"})
MAIN_RANGE = (-1.0, 1.0)
"""Where MTEB's main scores lie: fractions (accuracy, ndcg, map, v-measure, ap) and correlations or
p-MRR (from -1 to 1). A task whose other models' main scores all lie there and one model's does not
is a damaged file; a task none of whose scores lie there (a speed task) is read as it is."""
COMMON = "the subsets most models have"
DECLARED = "mteb task metadata"


def _common(tfs: Sequence[TaskFile]) -> tuple[set[Pair], str]:
    """The (split, subset) pairs taken as the task's declared ones without mteb's metadata: those
    in the files of more than half of the models (mteb scores a model that lacks a declared
    subset NaN on the task: it has a gap there), else those every file has; of their splits,
    the one in the most models' files (MSMARCO's ``dev``, which every file has, over the ``test``
    some files add), ``test`` first among equals, ``train`` only when it is the one split; and
    why splits were left out."""
    counts: dict[Pair, int] = {}
    held: dict[str, set[str]] = {}
    for tf in tfs:
        for p in tf.entries:
            counts[p] = counts.get(p, 0) + 1
            held.setdefault(p[0], set()).add(tf.model)
    common = {p for p, n in counts.items() if 2 * n > len(tfs)} or set.intersection(*(set(tf.entries) for tf in tfs))
    splits = {s for s, _ in common}
    usable = splits - {"train"} if len(splits) > 1 else splits
    most = max((len(held[s]) for s in usable), default=0)
    widest = {s for s in usable if len(held[s]) == most}
    keep = {"test"} if "test" in widest else widest
    dropped = sorted(splits - keep)
    why = (f"split(s) {', '.join(dropped)} left out: without mteb's metadata for the task (install mteb for its "
           f"declared eval_splits), it is scored on the split {'most' if most < len(tfs) else 'every'} model's files "
           "have, test first" if dropped else "")
    return {p for p in common if p[0] in keep}, why


def _main_key(tfs: Sequence[TaskFile]) -> str | None:
    """The metric a task's main_score is, read from files that give both (for files before
    mteb 1.11 that give no main_score)."""
    for tf in tfs:
        for scores, _ in tf.entries.values():
            main = scores.get(MAIN)
            if isinstance(main, int | float) and not isinstance(main, bool):
                for k, v in scores.items():
                    if k not in _NOT_METRICS and k != MAIN and v == main:
                        return str(k)
    return None


#: mteb's task types by the metrics their files report, with each type's main score (``AbsTask*``'s metadata).
_TYPE_MAIN: tuple[tuple[frozenset[str], frozenset[str], str, str], ...] = (
    (frozenset({"ndcg_at_10"}), frozenset(), "ndcg_at_10", "retrieval"),
    (frozenset({"v_measure"}), frozenset(), "v_measure", "clustering"),
    (frozenset({"map", "mrr"}), frozenset({"ndcg_at_10"}), "map", "reranking"),
    (frozenset({"cosine_spearman"}), frozenset({"cosine_ap", "cosine_accuracy"}), "cosine_spearman", "STS"),
    (frozenset({"precision", "recall", "f1", "accuracy"}), frozenset({"ap"}), "f1", "bitext-mining"),
    (frozenset({"accuracy", "f1"}), frozenset({"precision", "recall", "cosine_ap"}), "accuracy", "classification"),
)


def type_main_key(tfs: Sequence[TaskFile]) -> tuple[str | None, str]:
    """The main score of the mteb task type a task's metrics show (files before 1.11 name none), and the type."""
    keys = {str(k) for tf in tfs for scores, _ in tf.entries.values() for k in scores}
    for need, without, main, kind in _TYPE_MAIN:
        if need <= keys and not without & keys:
            return main, kind
    return None, ""


def _metric_values(tf: TaskFile, used: Sequence[Pair], main_key: str | None, label: str) -> list[Record]:
    """A model's records for a task: each metric every used subset reports, the mean of them."""
    rows = [tf.entries[p] for p in used]
    first = rows[0][0]
    keys = [str(k) for k in first if k not in _NOT_METRICS]
    if MAIN not in keys and main_key and main_key in first:
        keys.insert(0, MAIN)
    out: list[Record] = []
    for key in keys:
        total, bad, where = 0.0, "", ""
        for scores, at in rows:
            raw = scores.get(key, scores.get(main_key) if key == MAIN and main_key else None)
            x, why = score_of(raw)
            if x is None and not why and (key == MAIN or reads_as_number(raw)):
                why = not_a_number(raw)  # the main score, or a number written as text: a damaged score, not no metric
            if x is None and not why:
                break  # not a metric of every subset
            if why:
                bad, where = why, f"{at}.{key}"
                break
            total += x or 0.0
        else:
            at = rows[0][1] if len(rows) == 1 else used[0][0]  # the subset's own key when it is the one used
            out.append(Record(tf.model, tf.task, key, total / len(rows), None, tf.path, key=f"{at}.{key}"))
            continue
        if bad:
            out.append(Record(tf.model, tf.task, key, float("nan"), None, tf.path, bad=bad, key=where))
    return out


def records_of(kept: Sequence[TaskFile], label: str, warnings: list[str], aside: list[tuple[str, str]],
               ) -> tuple[list[Record], dict[str, dict[str, Any]]]:
    """The records of the task files kept (one revision per model), each task scored on the
    same splits and subsets for every model; what was dropped is added to ``warnings``
    and ``aside``."""
    by_task: dict[str, list[TaskFile]] = {}
    for tf in kept:
        by_task.setdefault(tf.task, []).append(tf)
    records: list[Record] = []
    readings: dict[str, dict[str, Any]] = {}
    typed: dict[tuple[str | None, str], list[str]] = {}
    for task, tfs in by_task.items():
        meta = mteb_tasks.declared(task)
        if meta is not None:
            used = {(s, u) for s in meta.splits for u in meta.subsets}
            source, why = DECLARED, ""
            lacking = {tf.model: sorted(f"{s}/{u}" for s, u in used - set(tf.entries)) for tf in tfs}
            lacking = {m: v for m, v in lacking.items() if v}
            if lacking:
                warnings.append(f"{task}: {len(lacking)} model(s) lack subsets mteb declares for it and have a gap "
                                f"on it: " + "; ".join(f"{m} ({names(v, 3)})" for m, v in sorted(lacking.items())[:5]))
        else:
            used, why = _common(tfs)
            source = COMMON
            lacking = {tf.model: sorted(f"{s}/{u}" for s, u in used - set(tf.entries)) for tf in tfs}
            lacking = {m: v for m, v in lacking.items() if v}
            if lacking:
                warnings.append(f"{task}: {len(lacking)} of the {len(tfs)} models lack subsets most models have and "
                                "have a gap on it (as mteb scores a missing subset NaN), never a mean over fewer "
                                "subsets: " + "; ".join(f"{m} ({names(v, 3)})" for m, v in sorted(lacking.items())[:5]))
                readings_gap = sorted(lacking)
            else:
                readings_gap = []
        order = sorted(used)
        readings[task] = {"splits": sorted({s for s, _ in order}), "subsets": sorted({u for _, u in order}),
                          "subsets_from": source}
        if meta is None and readings_gap:
            readings[task]["models_with_a_gap"] = readings_gap
        dropped: dict[str, set[str]] = {}
        for tf in tfs:
            for s, u in sorted(set(tf.entries) - used):
                dropped.setdefault(f"{s}/{u}", set()).add(tf.model)
        if dropped:
            readings[task]["set_aside"] = sorted(dropped)
            aside.append((f"{task}: {len(dropped)} split/subset(s) {names(list(dropped), 6)}",
                          why or ("not declared for the task by mteb" if meta is not None else
                                  f"in the files of half of the models or fewer (scored on {COMMON})")))
        fewest = sorted(tfs, key=lambda tf: (len(tf.entries), tf.model))[:3]
        limited = "; ".join(f"{tf.model} has {names([f'{s}/{u}' for s, u in tf.entries], 3)}" for tf in fewest)
        if not order:
            aside.append((task, "no split and subset is in most models' files"))
            warnings.append(f"{task}: set aside — no split and subset is in most models' files "
                            f"({len(tfs)} model(s)), so their scores would average different subsets ({limited}).")
            readings[task]["set_aside_task"] = True
            continue
        if dropped and meta is None:
            some = {m for ms in dropped.values() for m in ms}
            warnings.append(f"{task}: scored on {names([f'{s}/{u}' for s, u in order], 4)} for every model it has a "
                            f"score for ({COMMON}"
                            f"{'; ' + why if why else ''}); set aside {names(list(dropped), 4)} (in the files of "
                            f"{len(some)} of the {len(tfs)} models; {limited}).")
        main_key = (meta.main_score if meta is not None else None) or _main_key(tfs)
        if main_key is None and any(MAIN not in scores for tf in tfs for scores, _ in tf.entries.values()):
            main_key, kind = type_main_key(tfs)
            typed.setdefault((main_key, kind), []).append(task)
        got: list[Record] = []
        for tf in tfs:
            have = [p for p in order if p in tf.entries]
            if len(have) < len(order):
                continue  # a gap (declared subsets the file lacks)
            got += _metric_values(tf, have, main_key, label)
        records += _out_of_range(got)
    if typed:
        said = "; ".join(f"'{key}' (the main score of mteb's {kind} tasks, which their metrics show) for "
                         f"{names(ts, 4)}" if key else f"the first metric the files list for {names(ts, 4)}"
                         for (key, kind), ts in typed.items())
        warnings.append(f"{sum(map(len, typed.values()))} task(s) from files of mteb before 1.11 give no main_score "
                        f"(install mteb for each task's declared one): took {said} — choose another with "
                        "--score-column if that is wrong.")
    return records, readings


def _out_of_range(records: list[Record]) -> list[Record]:
    """``records`` of one task, a main score outside :data:`MAIN_RANGE` marked bad when another
    model's main score lies in it (one is enough: two models on two scales cannot both be read
    right, and MTEB writes fractions and correlations)."""
    lo, hi = MAIN_RANGE
    main = [r for r in records if r.metric == MAIN and not r.bad]
    inside = sum(lo <= r.value <= hi for r in main)
    if inside < 1 or inside == len(main):
        return records
    others = "the task's other model's main score lies" if inside == 1 else f"the task's other {inside} models' main scores lie"
    why = f"outside {lo:g} to {hi:g}, where {others} (MTEB's main scores are fractions or correlations)"
    return [r._replace(value=float("nan"), bad=f"{r.value:g}, {why}")
            if r.metric == MAIN and not r.bad and not lo <= r.value <= hi else r for r in records]
