"""The Evaluate page: a background run, live curves, stop, the AUC table and the verdict."""

from __future__ import annotations

import re
import time

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)

from subsetsel_core.strategies import STRATEGIES
from subsetsel_core.viz.curves import CEILING_NAME


def _start(at, trials: int, strategies=None):
    H.goto(at, "evaluate")
    at.number_input(key="ev_trials").set_value(trials)
    if strategies is not None:
        at.multiselect(key="ev_strategies").set_value(strategies)
    at.button[0].click()  # the form's "Run evaluation"
    at.run()
    return at


def test_short_evaluation_shows_curves_table_and_verdict():
    at = _start(H.new_app(), trials=8)
    assert not H.errors(at)
    run = H.run_of(at)
    assert run is not None
    H.wait_for_run(at)
    assert run.status == "done" and run.done == 8
    assert not H.errors(at)
    curves = next(s for s in H.plotly_specs(at) if "random" in H.trace_names(s))
    names = H.trace_names(curves)
    for s in STRATEGIES:
        assert s in names
    banded = {n.removesuffix(" 2.5%") for n in names if n.endswith("2.5%")}
    assert "random" in banded and len(banded) == 2  # random's band and the favoured strategy's only
    assert any(s.get("type") == "rect" for s in curves["layout"].get("shapes", []))  # the ceiling band
    assert curves["layout"]["xaxis"]["range"] == [1.5, 20.5]
    table = at.dataframe[0].value
    assert set(table["strategy"]) == set(STRATEGIES)
    assert {"p vs random on these pools (Holm)", "p permutation (maxT)", "verdict"} <= set(table.columns)
    assert set(table["verdict"]) <= {"baseline", "helps", "no evidence that it helps"}
    assert not (table.astype(str) == "0.0000").any().any() and not (table.astype(str) == "None").any().any()
    verdicts = [x.value for x in at.success] + [x.value for x in at.info]
    assert any("shuffled descriptors give" in v for v in verdicts)
    finished = next(str(p.proto.text) for p in at.get("progress") if "Permutation test finished" in str(p.proto.text))
    said = re.search(r"after (\d+) shuffles for the verdict's metric", finished)
    assert said is not None, finished
    shown = re.search(r"over (\d+) shuffles\)", " ".join(verdicts))  # the verdict's null: the same shuffles
    assert shown is not None and shown.group(1) == said.group(1), (finished, verdicts)
    labels = {b.proto.label for b in at.get("download_button")}
    assert {"Results (JSON)", "AUC table (CSV)", "Curves (CSV)"} <= labels


def test_without_the_permutation_test_no_verdict_is_positive():
    at = H.goto(H.new_app(), "evaluate")
    at.toggle(key="ev_permute").set_value(False)
    at.number_input(key="ev_trials").set_value(6)
    at.multiselect(key="ev_strategies").set_value(["random", "kmeans"])
    at.button[0].click()  # the form's "Run evaluation"
    at.run()
    H.wait_for_run(at)
    assert not at.success and not H.errors(at)
    assert any(x.value.startswith("Not tested — not tested against shuffled descriptors") for x in at.info)
    table = at.dataframe[0].value
    assert "not tested against shuffled descriptors" in set(table["verdict"])
    at.toggle(key="ev_all_bands").set_value(True)
    at.run()
    curves = next(s for s in H.plotly_specs(at) if "kmeans" in H.trace_names(s))
    assert sum(n.endswith("2.5%") for n in H.trace_names(curves)) == 2


def test_metric_and_bands_controls_redraw_the_curves():
    at = _start(H.new_app(), trials=4, strategies=["random", "fafi-cosine"])
    H.wait_for_run(at)
    at.selectbox(key="ev_metric").select("mae")
    at.toggle(key="ev_bands").set_value(False)
    at.run()
    curves = next(s for s in H.plotly_specs(at) if "fafi-cosine" in H.trace_names(s))
    assert H.trace_names(curves) == [CEILING_NAME, "random", "fafi-cosine"]
    assert "rank MAE" in curves["layout"]["yaxis"]["title"]["text"]


def test_a_finished_run_survives_leaving_the_page():
    at = _start(H.new_app(), trials=4, strategies=["random", "kmeans"])
    H.wait_for_run(at)
    run_id = at.session_state["ev_run"]
    H.goto(at, "select")
    H.goto(at, "evaluate")
    assert at.session_state["ev_run"] == run_id
    assert any("kmeans" in H.trace_names(s) for s in H.plotly_specs(at))
    H.goto(at, "report")
    assert not H.errors(at)
    assert len(H.plotly_specs(at)) >= 2


def test_stop_keeps_the_trials_done():
    at = H.new_app()
    at.session_state["ev_krange"] = (2, 40)
    _start(at, trials=3000)
    run = H.run_of(at)
    t0 = time.time()
    while run.done == 0 and time.time() - t0 < 60:
        time.sleep(0.05)
    at.run()  # the polling fragment renders inline in AppTest
    assert any("Running" in p.proto.text for p in at.get("progress"))
    H.goto(at, "select")  # leave the page while it runs, and come back
    H.goto(at, "evaluate")
    assert H.run_of(at) is run and run.running
    assert any("Running" in p.proto.text for p in at.get("progress"))
    at.button(key="ev_stop").click()
    at.run()
    assert run.wait(60)
    assert run.status == "stopped" and 0 < run.done < 3000 and run.result.trials_done == run.done
    at.run()
    assert not H.errors(at)
    assert any("Stopped after" in p.proto.text for p in at.get("progress"))
    assert any(("random" in v) for v in [x.value for x in at.success] + [x.value for x in at.info])


def test_evaluation_without_representation_is_a_message():
    at = H.goto(H.new_app(), "evaluate")
    at.multiselect(key="ev_reps").set_value([])
    at.number_input(key="ev_trials").set_value(4)
    at.button[0].click()
    at.run()
    assert not at.exception
    assert any("choose at least one representation" in e.value for e in at.error)


def test_strategies_times_representations():
    at = H.goto(H.new_app(), "evaluate")
    at.multiselect(key="ev_reps").set_value(["ucr_info", "description"])
    at.multiselect(key="ev_strategies").set_value(["random", "fafi-cosine", "kmeans"])
    at.number_input(key="ev_trials").set_value(4)
    at.button[0].click()
    at.run()
    H.wait_for_run(at)
    assert not H.errors(at)
    curves = next(s for s in H.plotly_specs(at) if "random" in H.trace_names(s))
    names = [n for n in H.trace_names(curves) if n and "%" not in n]
    assert names == ["random", "fafi-cosine [ucr_info]", "fafi-cosine [description]", "kmeans [ucr_info]",
                     "kmeans [description]"]
    table = at.dataframe[0].value
    assert set(table["representation"]) == {"ucr_info", "description", "—"}


def test_a_new_run_stops_the_previous_one():
    at = H.new_app()
    at.session_state["ev_krange"] = (2, 40)
    _start(at, trials=3000)
    first = H.run_of(at)
    at.number_input(key="ev_trials").set_value(4)
    at.button[0].click()
    at.run()
    assert first.wait(60) and first.status == "stopped"
    H.wait_for_run(at)
    assert H.run_of(at).status == "done"
