"""An evaluation is stored with the identity of its benchmark and restored only with it.

The case behind it: a session evaluates a 107-model benchmark, switches to an 11-model one
and is kept as a workspace file whose benchmark is the new one. The old evaluation is left
out with a note (its permutation test too); the file loads; an evaluation of the file's own
benchmark is restored and still checked field by field.
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import numpy as np
import pytest

from subsetsel_core import EvaluationConfig, evaluate, load_descriptors, load_scores
from subsetsel_core.benchmark import Benchmark
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.permutation import permutation_test
from subsetsel_core.representations.descriptors import build_representation
from subsetsel_core.synthetic import make_synthetic
from subsetsel_core.workspace.files import (
    BENCHMARK_KEY,
    Workspace,
    evaluated_on,
    load_workspace,
    save_workspace,
)


def _bench(n_datasets: int, n_models: int, seed: int) -> tuple[Benchmark, Any]:
    s = make_synthetic(n_datasets=n_datasets, n_models=n_models, n_folds=1, seed=seed)
    return load_scores(s.scores, name=f"syn{n_models}"), s


@pytest.fixture(scope="module")
def big() -> tuple[Benchmark, Any, Any]:
    """A 107-model benchmark with an evaluation (MAE up to ~50 ranks) and its permutation test."""
    bench, s = _bench(24, 107, 1)
    rep = build_representation(load_descriptors(s.oracle.iloc[:, :4]), bench.datasets, name="oracle")
    cfg = EvaluationConfig(strategies=("random", "kmeans"), trials=4, k_min=2, k_max=20, seed=2)
    res = evaluate(bench, rep, cfg)
    test = permutation_test(bench, rep, res.config, permutations=5, trials=4, observed=res)
    return bench, res, test


def _meta(raw: bytes) -> dict[str, Any]:
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        out: dict[str, Any] = json.loads(z.read("workspace.json"))
    return out


def test_the_digest_is_the_benchmarks_content_not_its_name() -> None:
    a, _ = _bench(6, 5, 3)
    same = Benchmark(a.scores.copy(), a.datasets, a.models, a.folds, a.higher_is_better, name="renamed")
    assert a.digest == same.digest and len(a.digest) == 64
    changed = a.scores.copy()
    changed[0, 0, 0] += 1e-9
    assert Benchmark(changed, a.datasets, a.models, a.folds).digest != a.digest
    assert Benchmark(a.scores, a.datasets, a.models, a.folds, higher_is_better=False).digest != a.digest
    flipped = Benchmark(a.scores, a.datasets, a.models, a.folds, flipped=(a.datasets[0],))
    assert flipped.digest != a.digest


def test_an_evaluation_records_its_benchmark_and_the_file_stores_it(big: tuple[Benchmark, Any, Any]) -> None:
    bench, res, test = big
    assert res.info[BENCHMARK_KEY] == bench.digest == evaluated_on(res, bench)
    raw = save_workspace(Workspace(bench, evaluations={"run": res}, permutation_tests={"run": test}))
    assert _meta(raw)["evaluations"]["run"][BENCHMARK_KEY] == bench.digest
    back = load_workspace(raw)
    assert set(back.evaluations) == {"run"} and set(back.permutation_tests) == {"run"} and back.dropped == []
    assert json.dumps(back.evaluations["run"].to_json_dict()) == json.dumps(res.to_json_dict())


def test_an_evaluation_of_another_benchmark_is_left_out_with_a_note(big: tuple[Benchmark, Any, Any]) -> None:
    _, res, test = big
    small, _ = _bench(8, 11, 4)  # 11 models: the old evaluation's MAE values are out of its range
    own = evaluate(small, {}, EvaluationConfig(strategies=("random",), trials=3, k_min=2, k_max=5, seed=1))
    raw = save_workspace(Workspace(small, settings={"seed": 3}, evaluations={"old": res, "new": own},
                                   permutation_tests={"old": test}))
    meta = _meta(raw)
    assert meta["evaluations"]["old"][BENCHMARK_KEY] != small.digest
    back = load_workspace(raw, label="mine.subsetsel")  # loads: never unloadable because of a switch
    assert back.benchmark.models == small.models and back.settings == {"seed": 3}
    assert set(back.evaluations) == {"new"} and back.permutation_tests == {}
    assert back.dropped == ["The evaluation 'old' (with its permutation test) was run on another benchmark than "
                            "the one this file holds; it is not loaded."]


def _as_format_1(raw: bytes) -> bytes:
    """The file as the previous format wrote it: version 1, no benchmark identity anywhere."""
    src = zipfile.ZipFile(io.BytesIO(raw))
    meta = json.loads(src.read("workspace.json"))
    meta["version"] = 1
    for ev in meta["evaluations"].values():
        ev.pop(BENCHMARK_KEY)
        ev["info"].pop(BENCHMARK_KEY, None)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for info in src.infolist():
            z.writestr(info.filename, json.dumps(meta) if info.filename == "workspace.json" else src.read(info))
    return buf.getvalue()


def test_a_file_of_the_previous_format_with_the_old_evaluation_loads_without_it(
        big: tuple[Benchmark, Any, Any]) -> None:
    _, res, test = big
    small, _ = _bench(8, 11, 4)
    raw = _as_format_1(save_workspace(Workspace(small, evaluations={"evaluation": res},
                                                permutation_tests={"evaluation": test})))
    back = load_workspace(raw, label="kept session")
    assert back.evaluations == {} and back.permutation_tests == {}
    (note,) = back.dropped
    assert note.startswith("The evaluation 'evaluation' (with its permutation test) does not fit the benchmark this "
                           "file holds (kept session: workspace.json: 'evaluations.evaluation.ks[")
    assert note.endswith("it was most likely run on another benchmark, and is not loaded.")


def test_a_file_of_the_previous_format_with_its_own_evaluation_restores_it(big: tuple[Benchmark, Any, Any]) -> None:
    bench, res, test = big
    raw = _as_format_1(save_workspace(Workspace(bench, evaluations={"run": res}, permutation_tests={"run": test})))
    back = load_workspace(raw)
    assert set(back.evaluations) == {"run"} and set(back.permutation_tests) == {"run"} and back.dropped == []
    np.testing.assert_array_equal(back.evaluations["run"].values["kmeans"]["spearman"],
                                  res.values["kmeans"]["spearman"])


def test_an_evaluation_of_the_files_own_benchmark_is_still_checked(big: tuple[Benchmark, Any, Any]) -> None:
    bench, res, _ = big
    meta_raw = save_workspace(Workspace(bench, evaluations={"run": res}))
    src = zipfile.ZipFile(io.BytesIO(meta_raw))
    meta = json.loads(src.read("workspace.json"))
    meta["evaluations"]["run"]["ks"][-1] = 999  # past the datasets: damaged, not "another benchmark"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for info in src.infolist():
            z.writestr(info.filename, json.dumps(meta) if info.filename == "workspace.json" else src.read(info))
    with pytest.raises(InputError, match="ks"):
        load_workspace(buf.getvalue())
    meta["evaluations"]["run"].pop(BENCHMARK_KEY)  # format 2 requires the identity
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for info in src.infolist():
            z.writestr(info.filename, json.dumps(meta) if info.filename == "workspace.json" else src.read(info))
    with pytest.raises(InputError, match=f"'evaluations.run.{BENCHMARK_KEY}' must be a string"):
        load_workspace(buf.getvalue())
