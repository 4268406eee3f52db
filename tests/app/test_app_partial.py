"""The ``partial`` policy in the dashboard: an upload with gaps keeps every model, the gaps view,
the leaderboard's datasets per model and the share of models covered in the results."""

from __future__ import annotations

from pathlib import Path

import apphelpers as H  # puts the repository root on sys.path (before subsetsel_app imports)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "leaderboards"


def _gappy_long_csv() -> bytes:
    """16 datasets × 5 models × 2 folds, one model missing on five datasets, another on two."""
    import numpy as np

    rng = np.random.default_rng(4)
    lines = ["dataset,model,fold,accuracy"]
    for d in range(16):
        for m in range(5):
            if (m == 4 and d < 5) or (m == 2 and d in (7, 11)):
                continue
            for f in range(2):
                lines.append(f"task_{d:02d},model_{m},{f},{rng.uniform(0.4, 0.9):.4f}")
    return ("\n".join(lines) + "\n").encode()


def test_partial_upload_keeps_every_model_and_shows_its_gaps() -> None:
    at = H.goto(H.new_app(), "benchmark")
    at.file_uploader[0].set_value(("gappy.csv", _gappy_long_csv(), "text/csv"))
    at.run()
    assert any("Missing scores" in str(e.value) for e in at.error)  # 'error' is the default policy
    assert any(o.startswith("partial: keep everything") for o in at.selectbox(key="up_missing").options)
    at.selectbox(key="up_missing").select("partial")
    at.run()
    assert not at.error, [e.value for e in at.error]
    at.button(key="use_upload_btn").click()
    at.run()
    b = at.session_state["data"].benchmark
    assert (b.n_datasets, b.n_models) == (16, 5) and b.has_gaps
    assert not H.errors(at)
    text = " ".join(str(m.value) for m in at.markdown)
    assert "2 of 5 models are ranked on fewer than all 16 datasets" in text.replace("\\", "")
    assert any("Gaps: which dataset ranks which model" in str(s.get("layout", {}).get("title", {}))
               for s in H.plotly_specs(at))

    H.goto(at, "home")
    assert not H.errors(at)
    board = H.markup(at, "ss-leaderboard")
    assert ">datasets</th>" in board and ">11</td>" in board  # model_4 is ranked on 11 datasets

    H.goto(at, "evaluate")
    at.multiselect(key="ev_strategies").set_value(["random"])
    at.number_input(key="ev_trials").set_value(4)
    at.button[0].click()
    at.run()
    H.wait_for_run(at)
    assert not H.errors(at)
    infos = " ".join(str(i.value) for i in at.info).replace("\\", "")
    assert "Gaps (the 'partial' policy)" in infos and "of the pool's models" in infos
