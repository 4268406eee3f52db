"""*What the theory predicts*: on the Representation page before any run, the Evaluate page's panel
(predicted and observed curves overlaid, the coverage bound) and its section of the report."""

from __future__ import annotations

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)

from subsetsel_core.viz.theory import (
    OBSERVED_NAME,
    OBSERVED_SUFFIX,
    PREDICTED_NAME,
    PREDICTION_SUFFIX,
    RADIUS_NAME,
)


def _run(at, strategies, trials: int = 4, *, all_reps: bool = False):
    H.goto(at, "evaluate")
    if all_reps:
        at.multiselect(key="ev_reps").set_value(list(at.multiselect(key="ev_reps").options))
    at.toggle(key="ev_permute").set_value(False)
    at.number_input(key="ev_trials").set_value(trials)
    at.multiselect(key="ev_strategies").set_value(strategies)
    at.button[0].click()  # the form's "Run evaluation"
    at.run()
    return H.wait_for_run(at)


def _theory_chart(at):
    return next((s for s in H.plotly_specs(at) if PREDICTED_NAME in H.trace_names(s)), None)


def _texts(at):
    return [x.value for x in at.info] + [x.value for x in at.warning] + [x.value for x in at.success]


def _prediction_chart(at):
    return next((s for s in H.plotly_specs(at) if any(PREDICTION_SUFFIX in n for n in H.trace_names(s))), None)


def test_the_representation_page_predicts_every_strategy_before_any_run():
    at = H.goto(H.new_app(), "representation")
    assert not H.errors(at)
    assert any("What the theory predicts" in m.value for m in at.markdown)
    assert any("the geometry predicts" in t.lower() for t in _texts(at))  # words first
    spec = _prediction_chart(at)
    assert spec is not None
    names = H.trace_names(spec)
    assert any(n.startswith("random") for n in names) and any(n.startswith("fafi-euclidean") for n in names)
    assert not any(OBSERVED_SUFFIX in n.split(" — ")[-1] for n in names if " — " in n)  # nothing run yet
    assert {"length-scale ℓ", "noise variance τ²", "nearest-neighbour distance"} <= {m.label for m in at.metric}


def test_the_synthetic_oracle_predicts_a_gain_and_broken_does_not():
    at = H.goto(H.load_sample(H.new_app(), "synthetic"), "representation")
    at.multiselect(key="rep_tables").set_value(["oracle"])
    at.run()
    assert not H.errors(at) and any("predicts a gain over random" in t for t in _texts(at))
    at.multiselect(key="rep_tables").set_value(["broken"])
    at.run()
    assert not H.errors(at) and any("predicts no gain over random" in t for t in _texts(at))


def test_the_panel_shows_the_bound_the_observed_share_and_a_sentence():
    at = _run(H.new_app(), ["random", "fafi-euclidean", "fafi-cosine"])
    assert not H.errors(at)
    assert any("What the theory predicts" in m.value for m in at.markdown)
    spec = _theory_chart(at)
    assert spec is not None
    names = H.trace_names(spec)
    assert OBSERVED_NAME in names and RADIUS_NAME in names
    assert any(t.get("yaxis") == "y2" for t in spec["data"])  # the covering radius on the right axis
    assert any("Descriptor distances correlate with performance over a length of" in t for t in _texts(at))
    over = _prediction_chart(at)
    assert over is not None  # predicted and observed per strategy of the run
    over_names = H.trace_names(over)
    for s in ("random", "fafi-euclidean", "fafi-cosine"):
        assert f"{s} — {PREDICTION_SUFFIX}" in over_names and f"{s} — {OBSERVED_SUFFIX}" in over_names
    labels = {m.label for m in at.metric}
    assert {"length-scale ℓ", "noise variance τ²", "nearest-neighbour distance"} <= labels
    box = at.selectbox(key="ev_theory")
    assert set(box.options) == {"fafi-euclidean", "fafi-cosine"} and box.value == "fafi-euclidean"
    box.select("fafi-cosine")
    at.run()
    assert not H.errors(at) and "fafi-cosine" in str(_theory_chart(at)["layout"]["title"])


def test_no_fafi_entry_no_panel():
    at = _run(H.new_app(), ["random", "kmeans"])
    assert not H.errors(at)
    assert not any("What the theory predicts" in m.value for m in at.markdown) and _theory_chart(at) is None


def test_synthetic_oracle_and_broken_read_differently():
    at = _run(H.load_sample(H.new_app(), "synthetic"), ["random", "fafi-euclidean"], all_reps=True)
    assert not H.errors(at)
    box = at.selectbox(key="ev_theory")
    oracle = next(o for o in box.options if "oracle" in o.lower())
    broken = next(o for o in box.options if "broken" in o.lower())
    box.select(oracle)
    at.run()
    assert not any("little information" in t for t in _texts(at))
    at.selectbox(key="ev_theory").select(broken)
    at.run()
    assert any("little information" in t for t in [w.value for w in at.warning])


def test_the_report_has_a_theory_section():
    at = _run(H.new_app(), ["random", "fafi-euclidean"])
    H.goto(at, "report")
    assert not H.errors(at)
    sections = " ".join(str(c.value) for c in at.caption if str(c.value).startswith("Sections"))
    assert "What the theory predicts (fafi-euclidean)" in sections


def test_the_headroom_price_names_the_judging_models_and_its_confidence_interval():
    import time

    at = _run(H.new_app(), ["random", "fafi-euclidean"])
    at.number_input(key="ev_hr_splits").set_value(3)
    at.number_input(key="ev_hr_trials").set_value(4)
    at.run()
    at.button(key="ev_hr_btn").click()
    at.run()
    for _ in range(120):
        if any(m.label == "95 % confidence interval of the mean" for m in at.metric):
            break
        time.sleep(0.5)
        at.run()
    assert not H.errors(at)
    labels = {m.label: m.value for m in at.metric}
    assert labels["judging models (seen by score-aware selection)"] == "20"  # TSC: 40 models, half held out
    assert "95 % confidence interval of the mean" in labels
    texts = _texts(at)
    assert any("chose from the scores of 20 judging models" in t for t in texts)
    assert any("overfit that small pool" in str(c.value) for c in at.caption)
