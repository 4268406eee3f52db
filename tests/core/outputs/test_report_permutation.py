"""`subsetsel report`: the permutation test on by default, the explicit opt-out says "not tested" everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from subsetsel_core.cli.main import main

MMLU = Path(__file__).resolve().parents[3] / "sample_data" / "mmlu"
CONFIG = ('seed = 1\n[evaluate]\nstrategies = ["random", "fafi-cosine", "fafi-euclidean"]\ntrials = 4\nk_max = 5\n'
          'metrics = ["spearman"]\n{extra}[select]\nk = 4\n')


def _report(tmp_path: Path, extra: str, name: str) -> tuple[int, Path]:
    cfg = tmp_path / f"{name}.toml"
    cfg.write_text(CONFIG.format(extra=extra), encoding="utf-8")
    out = tmp_path / name
    return main(["report", "--benchmark", str(MMLU), "--config", str(cfg), "--out", str(out), "--no-images"]), out


@pytest.mark.slow
def test_report_tests_by_default_and_says_not_tested_when_told(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = _report(tmp_path, "permutations = 19\n", "tested")
    assert rc == 0
    doc = json.loads((out / "evaluation.json").read_text())
    assert doc["permutation_test"]["permutations"] == 19 and "maxT" in doc["permutation_test"]["method"]
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "maxT" in page and "Whether a strategy helps rests on the permutation test" in page
    from subsetsel_core.text.rounding import text

    for key in ("fafi-cosine", "fafi-euclidean"):  # the table and the verdict show the JSON's gain
        assert text(doc["results"][key]["gain"]["spearman"], "gain") in page
    rc, off = _report(tmp_path, "permutations = 0\n", "off")
    assert rc == 0
    doc = json.loads((off / "evaluation.json").read_text())
    assert doc["permutation_test"] is None and "not tested" in doc["note"]
    page = (off / "report.html").read_text(encoding="utf-8")
    assert "Not tested" in page and "was not tested against shuffled descriptors" in page  # verdict and CD caption
    assert "Best:" not in page and " helps:" not in page
    capsys.readouterr()
    rc, bad = _report(tmp_path, "permutations = 99999\n", "bad")
    assert rc == 2 and not bad.exists()
    err = capsys.readouterr().err
    assert "permutations" in err and "max_permutations" in err
