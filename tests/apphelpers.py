"""Shared helpers of the dashboard tests (AppTest and browser).

Importing this module puts the repository root on ``sys.path`` (the app package
``subsetsel_app`` is not installed) and switches the background UMAP / t-SNE projections
off for in-process AppTests (``SUBSETSEL_PROJECTION=off``: maps use PCA), so AppTests
never start a worker process.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("SUBSETSEL_PROJECTION", "off")

APP = str(ROOT / "app.py")
PAGES = ("home", "benchmark", "representation", "select", "evaluate", "report")
SAMPLES = ("tsc_bakeoff", "mmlu", "synthetic")
TIMEOUT = 120


def new_app() -> Any:
    """A fresh AppTest of the dashboard, run once (opens on the default sample)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    return at


def goto(at: Any, page: str) -> Any:
    """Switch to a page (``"select"`` → ``pages/select.py``) and run."""
    at.switch_page(f"pages/{page}.py")
    at.run()
    return at


def errors(at: Any) -> list[str]:
    """Texts of exception and error elements (an empty list means the page is clean)."""
    return [str(e.value) for e in at.exception] + [str(e.value) for e in at.error]


def load_sample(at: Any, sample: str) -> Any:
    """Make an embedded sample the active benchmark through the Benchmark page."""
    goto(at, "benchmark")
    box = at.selectbox(key="bench_choice")
    target = next(o for o in box.options if o.endswith(f"({sample})"))
    box.select(target)
    at.run()
    for b in at.button:
        if b.key == "load_folder_btn":
            if not b.disabled:
                b.click()
                at.run()
            break
    assert at.session_state["data"].name == sample, at.session_state["data"].name
    return at


def plotly_specs(at: Any) -> list[dict[str, Any]]:
    """The JSON specs of every plotly chart on the page."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def trace_names(spec: dict[str, Any]) -> list[str]:
    """Names of a plotly spec's traces (``""`` for unnamed ones)."""
    return [str(t.get("name", "")) for t in spec.get("data", [])]


def wait_for_run(at: Any, timeout: float = 120.0) -> Any:
    """Wait until the session's evaluation run ends, then rerun the page."""
    from subsetsel_app import runner

    run = runner.get_run(at.session_state["ev_run"])
    assert run is not None
    t0 = time.time()
    while run.running and time.time() - t0 < timeout:
        time.sleep(0.05)
    assert not run.running, "evaluation did not finish in time"
    at.run()
    return at


def tiny_long_csv(n_datasets: int = 8, n_models: int = 4, n_folds: int = 2, seed: int = 0) -> bytes:
    """A small long-format score table (dataset, model, fold, score) as CSV bytes."""
    import numpy as np

    rng = np.random.default_rng(seed)
    skill = rng.normal(size=n_models)
    lines = ["dataset,model,fold,score"]
    for d in range(n_datasets):
        for m in range(n_models):
            for f in range(n_folds):
                lines.append(f"ds_{d:02d},model_{m},{f},{0.7 + 0.05 * skill[m] + 0.02 * rng.normal():.4f}")
    return ("\n".join(lines) + "\n").encode()


def tiny_descriptors_csv(n_datasets: int = 8, seed: int = 1, rename: dict[str, str] | None = None) -> bytes:
    """Descriptors for :func:`tiny_long_csv` (dataset, size, kind) as CSV bytes."""
    import numpy as np

    rng = np.random.default_rng(seed)
    lines = ["dataset,size,kind"]
    for d in range(n_datasets):
        name = f"ds_{d:02d}"
        name = (rename or {}).get(name, name)
        lines.append(f"{name},{int(rng.integers(10, 1000))},{'ab'[d % 2]}")
    return ("\n".join(lines) + "\n").encode()
