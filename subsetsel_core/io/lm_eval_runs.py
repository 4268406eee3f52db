"""How runs of lm-evaluation-harness and lighteval compare: each task's run setting (shots, limit), a run's time
from its file name, and the names that changed between versions (0.3's metric keys, lighteval's suites, the Hub's
default revision), read so that runs of one model and task are seen as such."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from subsetsel_core.io.result_records import Record


def _shots(data: Mapping[str, Any], task: str) -> str:
    """The few-shot examples a task was run with, in words (``"8-shot"``; empty: not recorded): 0.4's ``n-shot``,
    its ``configs.<task>.num_fewshot``, 0.3's ``config.num_fewshot``; when two of them disagree, both; a value that
    is not a whole number of shots is said as it is written."""
    said = []
    for key, value in (("n-shot", _at(data, "n-shot", task)), ("configs", _at(data, "configs", task, "num_fewshot")),
                       ("config", _at(data, "config", "num_fewshot"))):
        if value is None:
            continue
        n = _whole(value)
        said.append((key, f"{n}-shot" if n is not None else f"{key} num_fewshot {str(value)[:20]}"))
    if not said:
        return ""
    distinct = list(dict.fromkeys(text for _, text in said))
    return distinct[0] if len(distinct) == 1 else " / ".join(f"{text} ({key})" for key, text in said)


def _whole(value: Any) -> int | None:
    """A count of shots written as 8, 8.0 or "8" (None: not a whole number from 0 to 10,000)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        value = value.strip()
        if not value.isdigit():
            return None
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and 0 <= value <= 10_000 else None


def _at(data: Any, *keys: str) -> Any:
    for k in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(k)
    return data


def run_setting(data: Mapping[str, Any], task: str) -> str:
    """How a task's run was set up, in words (``"10-shot"``, ``"0-shot, limit 100"``; empty: not recorded)."""
    shots = _shots(data, task)
    limit = _at(data, "config", "limit")
    if isinstance(limit, str):  # written as text ("100"): the harness reads it as a number
        try:
            limit = float(limit)
        except ValueError:
            limit = None
    parts = ([shots] if shots else []) + (
        [f"limit {limit:g}"] if isinstance(limit, int | float) and not isinstance(limit, bool) else [])
    return ", ".join(parts)


_NAME_TIME = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})T(\d{1,2})[-:](\d{1,2})[-:](\d{1,2})(\.\d+)?")  # an hour may be unpadded


_SHOTS_SUFFIX = re.compile(r"^(.*)\|(\d+)$")


def shot_variants(tasks: set[str]) -> dict[str, list[str]]:
    """Task → its few-shot counts, for tasks named ``<task>|<shots>`` at two counts or more (lighteval's keys)."""
    by: dict[str, set[str]] = {}
    for t in tasks:
        if (m := _SHOTS_SUFFIX.match(t)) is not None:
            by.setdefault(m.group(1), set()).add(m.group(2))
    return {b: sorted(v, key=int) for b, v in sorted(by.items()) if len(v) > 1}


def name_time(path: str) -> float | None:
    """The time a results file's name holds (``results_2024-01-06T09-45-44.755529.json``, as lm-eval, lighteval and
    the Open LLM Leaderboard name them), in seconds since 1970 (UTC), or None."""
    m = _NAME_TIME.search(path.rsplit("/", 1)[-1])
    if m is None:
        return None
    try:
        y, mo, d, h, mi, sec = (int(g) for g in m.groups()[:6])
        when = datetime(y, mo, d, h, mi, sec, tzinfo=UTC)
    except ValueError:
        return None
    return when.timestamp() + (float(m.group(7)) if m.group(7) else 0.0)


DEFAULT_REVISION = "main"
"""The Hugging Face Hub's default branch: ``revision=main`` in ``model_args`` is the model without a revision (the
harness records ``model_revision: "main"`` either way)."""
METRIC_ALIASES = {"ppl": "perplexity"}
"""Harness 0.3's metric keys that 0.4 renamed (lambada's ``ppl`` is 0.4's ``perplexity``)."""


def same_metrics(records: Sequence[Record]) -> tuple[list[Record], set[tuple[str, str]]]:
    """Harness 0.3's bare metric keys (``acc``, ``ppl``) as 0.4's (``acc,none``, ``perplexity,none``) in the tasks
    where files of both versions are, so that one model's runs of a task under both compare (the later kept);
    and which keys were read so."""
    keys: dict[str, set[str]] = {}
    for r in records:
        keys.setdefault(r.dataset, set()).add(r.metric)
    renamed: set[tuple[str, str]] = set()
    out = []
    for r in records:
        if "," not in r.metric:
            new = f"{METRIC_ALIASES.get(r.metric, r.metric)},none"
            if new in keys[r.dataset]:
                renamed.add((r.metric, new))
                r = r._replace(metric=new)
        out.append(r)
    return out, renamed


def same_tasks(records: Sequence[Record]) -> tuple[list[Record], set[tuple[str, str]]]:
    """lighteval's tasks named ``suite|task|shots`` (before it dropped suites: ``lighteval|gsm8k|5``) as
    ``task|shots`` where files of the newer naming hold that task; and which names were read so."""
    tasks = {r.dataset for r in records}
    renamed: set[tuple[str, str]] = set()
    out = []
    for r in records:
        parts = r.dataset.split("|")
        if len(parts) == 3 and (new := f"{parts[1]}|{parts[2]}") in tasks:
            renamed.add((r.dataset, new))
            r = r._replace(dataset=new)
        out.append(r)
    return out, renamed
