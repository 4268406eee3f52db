"""Decision tools in the dashboard: advised k on the Evaluate page, generalisation to new models,
and the representation check (with its noise warning) on the Representation page."""

from __future__ import annotations

import dataclasses

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)
import numpy as np
import pandas as pd
import pytest

from subsetsel_app import active_data, jobs
from subsetsel_app.views import decisions, required_k
from subsetsel_core.evaluation.protocol import evaluate
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.ranks.metrics import METRICS
from subsetsel_core.viz.curves import MARKS_NAME

STRATS = ["random", "kmeans", "fafi-cosine"]


def _evaluated(trials: int = 12):
    at = H.goto(H.new_app(), "evaluate")
    at.number_input(key="ev_trials").set_value(trials)
    at.multiselect(key="ev_strategies").set_value(STRATS)
    at.button[0].click()  # "Run evaluation"
    at.run()
    H.wait_for_run(at)
    assert not H.errors(at)
    return at


def _curves(at):
    return next(s for s in H.plotly_specs(at) if "random" in H.trace_names(s) and "kmeans" in H.trace_names(s))


def _advice_table(at) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "advised k" in d.value.columns)


def _marks(spec):
    return next(t for t in spec["data"] if t.get("name") == MARKS_NAME)


def _arr(v) -> np.ndarray:
    """A plotly data array (a list, or the binary ``{"dtype", "bdata"}`` form)."""
    if isinstance(v, dict) and "bdata" in v:
        import base64

        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
    return np.asarray(v)


def _sentences(at) -> list[str]:
    return [m.value for m in at.markdown if "datasets give" in m.value or "random needs" in m.value
            or "reaches" in m.value]


@pytest.fixture(scope="module")
def mmlu():
    return active_data.load_folder_data(H.ROOT / "sample_data" / "mmlu")


@pytest.fixture(scope="module")
def mmlu_result(mmlu):
    rep = active_data.build_representation(mmlu, active_data.table_recipe(mmlu, "subjects"))
    return evaluate(mmlu.benchmark, {"subjects": rep},
                    EvaluationConfig(strategies=("random", "kmeans", "a-optimal"), trials=12, k_max=12, seed=0))


# --------------------------------------------------------------------------- advice (pure helpers)


def test_advice_frame_follows_advise_semantics(mmlu_result):
    res = mmlu_result
    for metric, target in (("spearman", 0.85), ("mae", 6.0)):
        frame = required_k.advice_frame(res, metric, target)
        assert set(frame["key"]) == set(res.keys)
        for _, r in frame.iterrows():
            c = res.stats[r["key"]].curves[metric]
            ok = c.lo >= target if metric == "spearman" else c.hi <= target  # MAE: an upper bound
            if r["reached"]:
                i = list(res.ks).index(int(r["k"]))
                assert ok[i] and not ok[:i].any()
                assert r["mean"] == pytest.approx(c.mean[i]) and r["lo"] == pytest.approx(c.lo[i])
            else:
                assert not ok.any() and pd.isna(r["k"])
        ks = frame.loc[frame["reached"], "k"].astype(int).tolist()
        assert ks == sorted(ks)  # reached first, fewest datasets first


def test_advice_sentence_cases(mmlu_result):
    res = mmlu_result
    frame = required_k.advice_frame(res, "spearman", 0.8)
    best, rand = required_k.best_advice(frame)
    text = required_k.advice_sentence(res, frame, "spearman", 0.8)
    assert text.startswith(f"With {best['strategy']} on subjects, {best['k']} datasets give Spearman ρ {best['mean']:.2f}")
    assert text.endswith(f"random needs {rand['k']}.")
    none = required_k.advice_frame(res, "spearman", 0.999)
    assert not none["reached"].any()
    assert "Nothing reaches Spearman ρ ≥ 0.999" in required_k.advice_sentence(res, none, "spearman", 0.999)
    only_rand = frame.assign(reached=frame["strategy"] == "random")
    assert "No strategy reaches" in required_k.advice_sentence(res, only_rand, "spearman", 0.8)
    no_rand = frame.assign(reached=frame["strategy"] != "random")
    assert "random does not reach it up to k = 12" in required_k.advice_sentence(res, no_rand, "spearman", 0.8)
    marks = required_k.advice_marks(frame)
    assert sorted(marks["label"].loc[marks["label"] != ""]) == sorted(
        [f"{best['key']}: k = {best['k']}", f"random: k = {rand['k']}"])
    assert METRICS["mae"].default_target(40) == 2.0 and METRICS["spearman"].default_target(None) == 0.9


# --------------------------------------------------------------------------- advice on the Evaluate page


def test_advice_table_and_marked_points_on_the_curves():
    at = _evaluated()
    run = H.run_of(at)
    table = _advice_table(at)
    assert set(table["strategy"]) == set(STRATS)
    assert {"advised k", "Spearman ρ at k", "95% interval"} <= set(table.columns)
    frame = required_k.advice_frame(run.result, "spearman", 0.9)
    reached = frame[frame["reached"]]
    assert len(reached) >= 1
    curves = _curves(at)
    marks = _marks(curves)
    drawn = sorted(zip(_arr(marks["x"]).tolist(), np.round(_arr(marks["y"]), 9).tolist(), strict=True))
    assert drawn == sorted(zip(reached["k"].astype(int).tolist(), np.round(reached["mean"].astype(float), 9).tolist(),
                               strict=True))
    assert marks["marker"]["symbol"] == "star"
    notes = [a["text"] for a in curves["layout"].get("annotations", [])]
    best, rand = required_k.best_advice(frame)
    assert any(f"k = {best['k']}" in t for t in notes)
    assert any("target 0.9" in t for t in notes)  # the dotted target line
    # existing traces unchanged: strategy-named lines
    assert sum("2.5%" in n for n in H.trace_names(curves)) == 2  # random's band and the favoured strategy's
    sentence = _sentences(at)
    assert len(sentence) == 1 and f"{best['k']} datasets give Spearman ρ" in sentence[0]
    assert ("random needs" in sentence[0]) or ("random does not reach" in sentence[0])
    # the AUC table is still the first table on the page
    assert "AUC" in at.dataframe[0].value.columns


def test_changing_the_target_changes_the_advised_k():
    at = _evaluated()
    before = _advice_table(at)
    k_before = {s: k for s, k in zip(before["strategy"], before["advised k"], strict=True)}
    at.number_input(key="ev_adv_target").set_value(0.8)
    at.run()
    after = _advice_table(at)
    k_after = {s: k for s, k in zip(after["strategy"], after["advised k"], strict=True)}
    assert k_after != k_before

    def num(v: str) -> int:
        return int(v) if v.isdigit() else 10**6

    assert all(num(k_after[s]) <= num(k_before[s]) for s in STRATS)  # a lower bar is met no later
    assert "target 0.8" in " ".join(a["text"] for a in _curves(at)["layout"]["annotations"])
    at.number_input(key="ev_adv_target").set_value(0.999)
    at.run()
    table = _advice_table(at)
    assert all(v.startswith("not reached up to k = 20") for v in table["advised k"])
    assert not any(t.get("name") == MARKS_NAME for t in _curves(at)["data"])
    assert any("Nothing reaches" in s for s in _sentences(at))
    assert not H.errors(at)


def test_mae_advice_uses_an_upper_bound_and_moves_the_curves():
    at = _evaluated()
    at.selectbox(key="ev_adv_metric").select("mae")
    at.run()
    assert at.session_state["ev_metric"] == "mae"  # the curves follow, so the stars are visible
    target = at.session_state["ev_adv_target"]
    assert target == METRICS["mae"].default_target(40)
    assert "at most" in at.number_input(key="ev_adv_target").label
    table = _advice_table(at)
    assert "rank MAE at k" in table.columns
    run = H.run_of(at)
    frame = required_k.advice_frame(run.result, "mae", target)
    for _, r in frame[frame["reached"]].iterrows():
        assert r["hi"] <= target
    curves = _curves(at)
    assert "rank MAE" in curves["layout"]["yaxis"]["title"]["text"]
    if frame["reached"].any():
        assert sorted(_arr(_marks(curves)["x"]).tolist()) == sorted(frame.loc[frame["reached"], "k"].astype(int))
    # curves on another metric than the advice: no stars there
    at.selectbox(key="ev_metric").select("kendall")
    at.run()
    assert not any(t.get("name") == MARKS_NAME for t in _curves(at)["data"])
    assert not H.errors(at)


def test_advice_on_a_partial_result():
    at = H.new_app()
    at.session_state["ev_krange"] = (2, 40)
    H.goto(at, "evaluate")
    at.number_input(key="ev_trials").set_value(3000)
    at.button[0].click()
    at.run()
    run = H.run_of(at)
    import time

    t0 = time.time()
    while run.done < 4 and time.time() - t0 < 60:
        time.sleep(0.05)
    at.run()
    try:
        assert any(s.strip("*").startswith("So far (") for s in _sentences(at))
        assert "advised k" in _advice_table(at).columns
        assert not H.errors(at)
    finally:
        run.stop()
        run.wait(60)


# --------------------------------------------------------------------------- generalisation


def test_generalisation_view_renders_results():
    at = _evaluated()
    toggle = at.toggle(key="ev_gen_newest")
    assert toggle.disabled  # no sample has model release dates
    assert any("no model release dates" in c.value for c in at.caption)
    at.number_input(key="ev_gen_trials").set_value(10)
    at.run()
    at.button(key="ev_gen_btn").click()
    at.run()
    assert jobs.wait_all(120)
    at.run()
    assert not H.errors(at)
    verdicts = [x.value for x in at.success] + [x.value for x in at.warning]
    assert any("held-out models (random 20 of 40, seed 0)" in v for v in verdicts)
    spec = next(s for s in H.plotly_specs(at) if "seen vs held-out" in str(s["layout"].get("title", "")))
    assert "xaxis2" in spec["layout"]  # two panels
    lines = [t for t in spec["data"] if t.get("name") in STRATS and t.get("mode") == "lines"]
    assert len(lines) == 2 * len(STRATS)
    table = next(d.value for d in at.dataframe if "holds on held-out" in d.value.columns)
    assert set(table["strategy"]) == set(STRATS)
    assert "AUC, held-out models" in table.columns
    # cached per settings: pressing again returns the same finished job
    job = jobs.get(at.session_state["ev_gen_job"])
    assert job.done == job.total == 2 * 10 and job.phase.startswith("held-out models, 10 of 10")
    at.button(key="ev_gen_btn").click()
    at.run()
    assert jobs.get(at.session_state["ev_gen_job"]) is job


def test_newest_split_with_release_dates(mmlu):
    dates = {m: f"2023-{1 + i % 12:02d}-{1 + i % 28:02d}" for i, m in enumerate(mmlu.benchmark.models)}
    data = dataclasses.replace(mmlu, token="mmlu-dated", model_dates=dates)
    got, why = decisions.release_dates(data)
    assert got == dates and why == ""
    partial = dataclasses.replace(mmlu, token="mmlu-part", model_dates=dict(list(dates.items())[:5]))
    assert decisions.release_dates(partial)[0] is None
    assert "no model release dates" in decisions.release_dates(mmlu)[1]


# --------------------------------------------------------------------------- representation check


def _check(at):
    at.number_input(key="rep_check_trials").set_value(10)
    at.run()
    at.button(key="rep_check_btn").click()
    at.run()
    assert jobs.wait_all(120)
    at.run()
    assert not H.errors(at)
    return at


def test_representation_check_shows_the_verdict():
    at = H.new_app()
    H.load_sample(at, "mmlu")
    H.goto(at, "representation")
    assert any("At most about" in c.value for c in at.caption)  # says how long before running
    _check(at)
    metrics = {m.label: m.value for m in at.metric}
    gain = next(k for k in metrics if k.startswith("Gain over random"))
    assert {"Shuffled descriptors give", "p (permutation, maxT)", "Mantel r"} <= set(metrics)
    assert float(metrics[gain]) > 0
    verdict = [s.value for s in at.success] + [w.value for w in at.warning]
    assert any("'subjects'" in v and "shuffled descriptors give" in v for v in verdict)
    if at.success:  # green only when the permutation test says so
        assert " helps: gain over random" in at.success[0].value
    table = next(d.value for d in at.dataframe if "verdict" in d.value.columns)
    assert {"p permutation (maxT)", "p vs random on these pools (Holm)", "verdict"} <= set(table.columns)
    assert any("Took" in c.value for c in at.caption)


def test_noise_representation_warns(mmlu):
    rng = np.random.default_rng(2)
    noise = pd.DataFrame(rng.normal(size=(mmlu.benchmark.n_datasets, 6)), index=list(mmlu.benchmark.datasets),
                         columns=[f"noise_{i}" for i in range(6)])
    data = dataclasses.replace(mmlu, tables={"noise": noise}, specs={}, token="mmlu-noise-test")
    at = H.new_app()
    at.session_state["data"] = data
    for key in ("rep_tables", "rep_columns"):  # as after a benchmark switch (state.reset_for_new_benchmark)
        at.session_state[key] = None
    H.goto(at, "representation")
    _check(at)
    warnings = [w.value for w in at.warning]
    assert any("looks like noise" in w and "no evidence" in w.lower() for w in warnings)
    assert not at.success
    gain = next(m for m in at.metric if m.label.startswith("Gain over random"))
    assert gain.delta == "no evidence that it helps"


def _evaluated_on(data):
    """An app on ``data`` (as after a benchmark switch) with a finished 4-trial evaluation."""
    at = H.new_app()
    at.session_state["data"] = data
    for key in ("rep_tables", "rep_columns", "ev_reps"):
        at.session_state[key] = None
    H.goto(at, "evaluate")
    at.number_input(key="ev_trials").set_value(4)
    at.multiselect(key="ev_strategies").set_value(["random", "kmeans"])
    at.button[0].click()
    at.run()
    H.wait_for_run(at)
    return at


def _check_on_held_out(at) -> None:
    """Run the generalisation check with 6 trials and wait for it."""
    at.number_input(key="ev_gen_trials").set_value(6)
    at.run()
    at.button(key="ev_gen_btn").click()
    at.run()
    assert jobs.wait_all(120)
    at.run()


def test_generalisation_holds_out_the_newest_models_when_dated(mmlu):
    models = mmlu.benchmark.models
    dates = {m: f"{2020 + i // 12}-{1 + i % 12:02d}-15" for i, m in enumerate(models)}
    data = dataclasses.replace(mmlu, token="mmlu-dated-app", model_dates=dates)
    at = _evaluated_on(data)
    toggle = at.toggle(key="ev_gen_newest")
    assert not toggle.disabled
    toggle.set_value(True)
    _check_on_held_out(at)
    assert not H.errors(at)
    gen = jobs.get(at.session_state["ev_gen_job"]).result
    newest = sorted(models, key=lambda m: (dates[m], m))[-len(gen.new_models):]
    assert sorted(gen.new_models) == sorted(newest) and len(gen.new_models) == 41
    verdicts = [x.value for x in at.success] + [x.value for x in at.warning]
    assert any("newest 41, released from" in v for v in verdicts)


def test_mark_labels_point_away_from_each_other(mmlu_result):
    from subsetsel_core.viz import curves

    res = mmlu_result
    marks = pd.DataFrame({"key": ["kmeans", "random"], "strategy": ["kmeans", "random"], "k": [9, 8],
                          "mean": [0.93, 0.92], "lo": [0.9, 0.9], "hi": [0.95, 0.95],
                          "label": ["kmeans: k = 9", "random: k = 8"]})
    plain = curves.curves_figure(res.curves_frame(), "spearman")
    fig = curves.curves_figure(res.curves_frame(), "spearman", marks=marks, target=0.9)
    assert len(fig.data) == len(plain.data) + 1 and fig.data[-1].name == MARKS_NAME
    notes = {a.text: a for a in fig.layout.annotations if a.text.endswith(("k = 9", "k = 8"))}
    assert notes["random: k = 8"].ax < 0 < notes["kmeans: k = 9"].ax  # left one left, right one right
    assert plain.to_json() == curves.curves_figure(res.curves_frame(), "spearman", marks=None).to_json()


def test_release_dates_uploaded_on_the_page_hold_out_the_newest(mmlu):
    models = list(mmlu.benchmark.models)
    at = _evaluated_on(mmlu)
    assert at.toggle(key="ev_gen_newest").disabled
    uploader = next(u for u in at.file_uploader if u.key == "ev_gen_dates_file")

    # a table missing a model and with a misspelt one: a message, the toggle stays off
    rows = [f"{m.upper() if i == 0 else m},2021-{1 + i % 12:02d}-01" for i, m in enumerate(models[:-1])]
    uploader.set_value(("dates.csv", ("model,release_date\n" + "\n".join(rows)).encode(), "text/csv"))
    at.run()
    assert not at.exception
    msg = " ".join(e.value for e in at.error)
    assert "dates.csv" in msg and "have no release date" in msg and models[-1] in msg
    assert at.toggle(key="ev_gen_newest").disabled

    # a good table: the toggle turns on and the newest models are held out
    dates = {m: f"{2019 + i // 12}-{1 + i % 12:02d}-15" for i, m in enumerate(models)}
    text = "model;release_date\n" + "\n".join(f"{m};{d}" for m, d in dates.items())
    uploader = next(u for u in at.file_uploader if u.key == "ev_gen_dates_file")
    uploader.set_value(("dates.csv", text.encode(), "text/csv"))
    at.run()
    assert not H.errors(at)
    toggle = at.toggle(key="ev_gen_newest")
    assert not toggle.disabled and toggle.value
    _check_on_held_out(at)
    gen = jobs.get(at.session_state["ev_gen_job"]).result
    newest = sorted(models, key=lambda m: (dates[m], m))[-len(gen.new_models):]
    assert sorted(gen.new_models) == sorted(newest)
    assert "newest" in gen.how
