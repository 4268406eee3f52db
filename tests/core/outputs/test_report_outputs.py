"""Outputs for papers, meetings and reproduction: provenance, rounding, LaTeX, the critical-difference
diagram, the config file and ``subsetsel report``."""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from subsetsel_core.cli.main import main
from subsetsel_core.errors import InputError
from subsetsel_core.evaluation.critical_difference import (
    TESTS,
    block_ranks,
    critical_difference,
    friedman_statistics,
    from_scores,
    nemenyi_cd,
    nemenyi_q,
)
from subsetsel_core.evaluation.protocol import evaluate
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.outputs import export
from subsetsel_core.outputs.latex import auc_latex, best_keys, escape
from subsetsel_core.outputs.provenance import (
    PROVENANCE_KEYS,
    benchmark_inputs,
    from_arguments,
    png_text,
    png_with_text,
    provenance,
    svg_with_metadata,
)
from subsetsel_core.outputs.run_config import RunConfig, check_names, config_toml, read_run_config
from subsetsel_core.text.rounding import QUANTITIES, printf, round_frame, rounded, text
from subsetsel_core.text.safe_csv import split_comments
from subsetsel_core.version import VERSION

ROOT = Path(__file__).resolve().parents[3]
MMLU = ROOT / "sample_data" / "mmlu"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def small_result():  # type: ignore[no-untyped-def]
    from subsetsel_core.loading.folder import load_benchmark_folder
    from subsetsel_core.representations.recipe import build_recipe, make_recipe

    lb = load_benchmark_folder(MMLU)
    specs = {r.name: r for r in lb.manifest.representations}
    rep = build_recipe(make_recipe(lb.descriptors, specs, ["subjects"]), lb.benchmark, lb.descriptors, specs)
    cfg = EvaluationConfig(strategies=("random", "kmeans", "fafi-euclidean"), trials=8, k_min=2, k_max=6,
                           metrics=("spearman", "mae"), seed=3)
    return evaluate(lb.benchmark, [rep], cfg)


# --------------------------------------------------------------------------- provenance


def test_one_provenance_record_for_every_face(tmp_path: Path) -> None:
    f = tmp_path / "scores.csv"
    f.write_text("dataset,model,score\na,m,1\n")
    rec = provenance(seed=4, inputs={"scores.csv": _sha(f)}, command=["select", "--k", "3"], settings={"k": 3})
    assert tuple(rec) == PROVENANCE_KEYS
    assert rec["subsetsel_version"] == VERSION and rec["made_by"] == "command line" and rec["seed"] == 4
    assert rec["command"] == "subsetsel select --k 3" and rec["input_sha256"]["scores.csv"] == _sha(f)
    dash = provenance(seed=0, inputs={}, settings={"page": "Select", "k": (1, 2)})
    assert dash["made_by"] == "dashboard" and dash["command"] is None and dash["settings"]["k"] == [1, 2]
    # a benchmark folder stands for its manifest and the files it names
    files = benchmark_inputs(MMLU)
    assert str(MMLU / "manifest.json") in files and str(MMLU / "scores.csv") in files
    assert files[str(MMLU / "scores.csv")] == _sha(MMLU / "scores.csv")
    args = argparse.Namespace(benchmark=str(MMLU), scores=None, features=None, seed=7, k=3,
                              _argv=["select", "--benchmark", str(MMLU)])
    got = from_arguments(args)
    assert got["seed"] == 7 and got["settings"]["k"] == 3 and "_argv" not in got["settings"]
    assert got["input_sha256"] == files


def test_subset_csv_carries_its_sidecar_and_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, side = tmp_path / "subset.csv", tmp_path / "subset.json"
    assert main(["select", "--benchmark", str(MMLU), "--strategy", "kmeans", "--k", "5", "--seed", "2",
                 "--coverage", "--out", str(out), "--sidecar", str(side)]) == 0
    text_csv = out.read_text(encoding="utf-8")
    meta, body = split_comments(text_csv)
    assert text_csv.startswith("# subsetsel_version: ") and all(k in meta for k in PROVENANCE_KEYS)
    assert meta["command"].startswith("subsetsel select --benchmark ") and meta["seed"] == 2
    assert meta["input_sha256"][str(MMLU / "scores.csv")] == _sha(MMLU / "scores.csv")
    # pandas skips the block with comment="#"; the table is the subset, distances rounded (4 significant digits)
    table = pd.read_csv(out, comment="#")
    assert len(table) == 5 and list(table.columns[:2]) == ["order", "dataset"]
    full = json.loads(side.read_text())
    assert full["provenance"]["input_sha256"] == meta["input_sha256"] and full["datasets"] == list(table["dataset"])
    for v in table["farthest_member_distance"]:
        assert v == rounded(v, "distance")
    # the CSV replays like the sidecar: the same subset, the same table
    from_csv, from_json = export.read_sidecar(out), export.read_sidecar(side)
    assert from_csv == from_json
    capsys.readouterr()
    assert main(["select", "--benchmark", str(MMLU), "--recipe", str(out)]) == 0
    replay = capsys.readouterr().out
    assert split_comments(replay)[1] == body
    assert split_comments(replay)[0]["command"].endswith(f"--recipe {out}")
    # subsetsel place reads the CSV with its block
    new = tmp_path / "new.csv"
    new.write_text(export.template_csv(list(table["dataset"])).replace(",\n", ",0.7\n"), encoding="utf-8")
    assert main(["place", "--reference", str(MMLU / "scores.csv"), "--subset", str(out), "--scores", str(new),
                 "--lower-is-better"]) in (0, 2)
    # a CSV without the block is refused with a clear message
    bare = tmp_path / "bare.csv"
    bare.write_text(body, encoding="utf-8")
    with pytest.raises(InputError, match="comment block"):
        export.read_sidecar(bare)


def test_evaluation_json_and_latex_record_provenance(tmp_path: Path) -> None:
    out, tex = tmp_path / "ev.json", tmp_path / "auc.tex"
    assert main(["evaluate", "--benchmark", str(MMLU), "--strategies", "random,kmeans", "--trials", "3",
                 "--k-max", "4", "--metrics", "spearman", "--resamples", "20", "--out", str(out),
                 "--latex", str(tex)]) == 0
    latex = tex.read_text(encoding="utf-8")
    assert latex.startswith("% ") and "% command: \"subsetsel evaluate " in latex and r"\toprule" in latex
    assert main(["evaluate", "--benchmark", str(MMLU), "--budget", "0.5", "--latex", str(tex)]) == 2
    doc = json.loads(out.read_text())
    assert doc["provenance"]["command"].startswith("subsetsel evaluate") and doc["provenance"]["seed"] == 0
    assert doc["provenance"]["settings"]["trials"] == 3
    # JSON keeps full precision
    assert any(len(repr(v)) > 8 for v in doc["results"]["random"]["curves"]["spearman"]["mean"])


def test_figure_metadata_round_trips() -> None:
    import struct
    import zlib

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    png = (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr
           + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)) + struct.pack(">I", 0) + b"IEND"
           + struct.pack(">I", zlib.crc32(b"IEND")))
    record = json.dumps({"seed": 1, "name": "é"})
    tagged = png_with_text(png, "subsetsel-provenance", record)
    assert png_text(tagged, "subsetsel-provenance") == record and tagged.endswith(png[-12:])
    svg = svg_with_metadata(b'<svg xmlns="http://www.w3.org/2000/svg"><g/></svg>', '{"a": "<&>"}')
    assert b'<metadata id="subsetsel-provenance">{"a": "&lt;&amp;&gt;"}</metadata><g/>' in svg


def test_html_report_carries_provenance_safely() -> None:
    from subsetsel_core.viz.report import Report, build_html

    page = build_html(Report("t", provenance={"command": "subsetsel report </script><script>x()", "seed": 1}))
    assert 'id="provenance"' in page and "Provenance" in page
    blob = page.split('<script type="application/json" id="provenance">')[1].split("</script>")[0]
    assert json.loads(blob) == {"command": "subsetsel report </script><script>x()", "seed": 1} and "<" not in blob


# --------------------------------------------------------------------------- numbers for people


def test_rounding_registry() -> None:
    assert text(7.41, "auc") == "7.410" and text(0.000123456, "auc") == "0.0001235" and text(12345.6, "auc") == "12350"
    assert text(3.14159, "mean_rank") == "3.142" and text(0.5, "gain") == "+0.500" and text(None, "auc") == "—"
    assert text(0.00001, "p") == "< 1e-4" and text(0.0234, "p") == "0.023"
    assert rounded(2.345678, "distance") == 2.346 and rounded(-0.000123456, "auc") == -0.0001235
    assert printf("auc") == "%.4g" and printf("mean_rank") == "%.3f" and printf("gain") == "%+.3g"
    frame = pd.DataFrame({"auc_mean": [1.234567], "order": [1], "dataset": ["x"], "p_vs_random": [0.012345]})
    out = round_frame(frame)
    assert out["auc_mean"][0] == 1.235 and out["p_vs_random"][0] == 0.012 and out["order"][0] == 1
    assert set(QUANTITIES) >= {"auc", "p", "distance", "mean_rank"}


# --------------------------------------------------------------------------- LaTeX


def test_latex_escapes_every_special() -> None:
    assert escape(r"a_b%c&d#e$f{g}h~i^j\k") == (r"a\_b\%c\&d\#e\$f\{g\}h\textasciitilde{}i\textasciicircum{}j"
                                                r"\textbackslash{}k")
    assert escape("Spearman ρ\n") == r"Spearman $\rho$ " and escape("\x1b[2J") == "{[}2J"  # [ never opens an option


def test_latex_table_structure_and_bold(small_result) -> None:  # type: ignore[no-untyped-def]
    res = small_result
    tex = auc_latex(res, provenance={"seed": 3, "command": "subsetsel evaluate --x"})
    lines = tex.splitlines()
    assert lines[0].startswith("% ") and any(line.startswith("% seed: 3") for line in lines)
    body = [line for line in lines if not line.startswith("%")]
    assert body[0] == r"\begin{table}[htbp]" and body[-1] == r"\end{table}"
    for cmd in (r"\toprule", r"\midrule", r"\bottomrule", r"\begin{tabular}{lrr}", r"\caption{", r"\label{"):
        assert any(line.startswith(cmd) for line in body), cmd
    rows = body[body.index(r"\midrule") + 1:body.index(r"\bottomrule")]
    assert len(rows) == len(res.entries) and all(r.endswith(r"\\") and r.count("&") == 2 for r in rows)
    assert tex.count("{") == tex.count("}")
    # bold: the best mean per column (higher-is-better Spearman, lower-is-better MAE)
    for col, m in enumerate(res.config.metrics, start=1):
        means = {e.key: res.stats[e.key].auc[m].mean for e in res.entries}
        best = (max if m != "mae" else min)(means, key=means.__getitem__)
        assert best in best_keys(res, m)
        for e, row in zip(res.entries, rows, strict=True):
            cell = row.rstrip(r"\ ").split(" & ")[col]
            assert cell.startswith(r"\textbf{") == (e.key in best_keys(res, m))


def test_latex_ties_are_all_bold(small_result) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    res = small_result
    v = dict(res.values)
    v["kmeans"] = v["fafi-euclidean"] = {m: np.full_like(a, 0.9) for m, a in v["kmeans"].items()}
    tied = replace(res, values=v)
    assert best_keys(tied, "spearman") == {"kmeans", "fafi-euclidean"}
    assert auc_latex(tied).count(r"\textbf{") == 2 + len(best_keys(tied, "mae"))


@pytest.mark.skipif(shutil.which("pdflatex") is None and not os.environ.get("CI"),
                    reason="pdflatex is not installed (CI installs it and runs this test)")
def test_latex_compiles_with_pdflatex(small_result, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from subsetsel_core.evaluation.result import Entry

    res = small_result
    weird = ["fafi_{x}%&#$~^\\", "line\u2028sep\u2029para\r\n\x0b\x0c\x85end", "ctl\x00\x1b[31m\x7f\u200b\u202e",
             "中文 кириллица ΑΒΓ 😀 ą ẞ ﬁ e\u0301\u0328 <b>|", "\\input{/etc/passwd} \\end{document}"]
    entries = tuple(Entry(e.key, weird[i % len(weird)] if e.strategy != "random" else e.strategy, e.representation)
                    for i, e in enumerate(res.entries))
    tex = auc_latex(replace(res, entries=entries, info={**res.info, "benchmark": "bench\u2028mark\nx}{"}),
                    provenance={"command": "subsetsel evaluate --name 'a\nb\u2028c'"})
    (tmp_path / "auc.tex").write_text(tex, encoding="utf-8")
    (tmp_path / "doc.tex").write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                                      "\\input{auc.tex}\n\\end{document}\n", encoding="utf-8")
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 1000


# --------------------------------------------------------------------------- critical-difference diagram


def test_nemenyi_against_demsar_2006() -> None:
    # Table 5(a) of Demšar (2006): q_0.05 for k = 2 … 10
    published = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
    assert [nemenyi_q(k) for k in range(2, 11)] == pytest.approx(published, abs=2e-3)
    # the worked example: four C4.5 variants on 14 datasets, mean ranks 3.143, 2.000, 2.893, 1.964
    chi, ff, p = friedman_statistics([3.143, 2.000, 2.893, 1.964], 14)
    assert chi == pytest.approx(9.28, abs=0.01) and ff == pytest.approx(3.69, abs=0.01) and p < 0.05
    assert nemenyi_cd(4, 14) == pytest.approx(1.25, abs=0.005)
    assert nemenyi_cd(4, 14, alpha=0.10) == pytest.approx(1.12, abs=0.005)
    # at 0.05 no pair differs (3.143 − 1.964 = 1.179 < 1.25); at 0.10 C4.5+m+cf beats C4.5 (> 1.12)
    assert 3.143 - 1.964 < nemenyi_cd(4, 14) and 3.143 - 1.964 > nemenyi_cd(4, 14, alpha=0.10)


def _hand_case() -> tuple[np.ndarray, list[str]]:
    """A always best, B always second, C and D swap places: mean ranks 1, 2, 3.5, 3.5 over 10 blocks."""
    n = 10
    c = np.array([2.0, 1.0] * (n // 2))
    return np.column_stack([np.full(n, 4.0), np.full(n, 3.0), c, 3.0 - c]), ["A", "B", "C", "D"]


def test_cliques_of_a_hand_computed_case() -> None:
    scores, labels = _hand_case()
    assert block_ranks(scores).mean(axis=0).tolist() == [1.0, 2.0, 3.5, 3.5]
    # Nemenyi, k = 4, N = 10: CD = 2.569 √(20 / 60) = 1.483; |A−B| = 1 < CD, |B−C| = 1.5 ≥ CD, |C−D| = 0
    nem = from_scores(scores, labels, test="nemenyi")
    assert nem.cd == pytest.approx(2.569 * (20 / 60) ** 0.5, abs=1e-3)
    assert nem.cliques == (("A", "B"), ("C", "D")) and nem.labels == ("A", "B", "C", "D")
    # Wilcoxon–Holm: A > B on every block (p ≈ 0.002, still < 0.05 after Holm over 6 pairs); C vs D: p = 1
    wh = from_scores(scores, labels, test="wilcoxon-holm")
    assert wh.p_pairs[("A", "B")] < 0.05 and wh.p_pairs[("C", "D")] == 1.0
    assert wh.cliques == (("C", "D"),)
    # no difference at all (Friedman does not reject): one clique of everything
    flat = from_scores(np.random.default_rng(0).normal(size=(12, 3)), ["x", "y", "z"], test="nemenyi")
    assert flat.friedman_p is not None and flat.friedman_p > 0.05 and flat.cliques == (tuple(flat.labels),)
    assert "all are joined" in flat.describe()
    with pytest.raises(ValueError, match="unknown test"):
        from_scores(scores, labels, test="bonferroni")


def test_cd_of_an_evaluation_and_its_figure(small_result) -> None:  # type: ignore[no-untyped-def]
    from subsetsel_core.viz.critical_difference import cd_figure

    for test in TESTS:
        cd = critical_difference(small_result, "mae", test=test)
        assert sorted(cd.labels) == sorted(small_result.keys) and cd.n_blocks == small_result.trials_done
        assert list(cd.mean_ranks) == sorted(cd.mean_ranks)
        fig = cd_figure(cd, title="cd")
        bars = [s for s in fig.layout.shapes if s.line.width == 5]
        assert len(bars) == len(cd.cliques)
        texts = " ".join(a.text for a in fig.layout.annotations)
        assert all(label in texts for label in cd.labels)
        json.dumps(cd.to_json_dict())


# --------------------------------------------------------------------------- the config file


def test_config_round_trip_and_messages() -> None:
    cfg = RunConfig(title='MMLU "x" \\ y', seed=3, strategies=("random", "kmeans"), representations=("subjects",),
                    trials=50, alpha=0.7, k_min=3, k_max=9, metrics=("spearman",), permutations=99,
                    select_strategy="kmeans", select_k=4, critical_difference="nemenyi", images=False,
                    missing="partial", map_method="t-SNE")
    text = config_toml(cfg, comments={"made by": "test"})
    assert 'missing = "partial"' in text and 'map = "t-SNE"' in text
    assert read_run_config(text.encode()) == cfg
    assert "missing" not in config_toml(RunConfig())  # unset: the manifest's policy, else error
    assert read_run_config(b"") == RunConfig()
    for raw, needle in [(b"[evaluate]\ntrails = 3\n", "unknown key 'evaluate.trails'"),
                        (b"[evalute]\ntrials = 3\n", "unknown section [evalute]"),
                        (b"[evaluate]\ntrials = \"many\"\n", "'evaluate.trials' must be a whole number"),
                        (b"[evaluate]\nalpha = 1.5\n", "'evaluate.alpha' must be a number above 0"),
                        (b"[evaluate]\nk_min = 9\nk_max = 3\n", "'evaluate.k_min' (9) is above"),
                        (b"[report]\ncritical_difference = \"x\"\n", "'report.critical_difference' must be"),
                        (b"[report]\nimages = 1\n", "'report.images' must be true or false"),
                        (b'missing = "drop"\n', "'missing' must be one of error, drop-models"),
                        (b'[report]\nmap = "umap"\n', "'report.map' must be one of PCA, UMAP, t-SNE"),
                        (b"seed = [\n", "not valid TOML")]:
        with pytest.raises(InputError, match=needle.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
            read_run_config(raw, label="run.toml")
    with pytest.raises(InputError, match="'evaluate.strategies' names 'kmean'"):
        check_names(read_run_config(b'[evaluate]\nstrategies = ["kmean"]\n'))


# --------------------------------------------------------------------------- subsetsel report


def test_report_command_writes_every_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text('title = "Test report"\nseed = 2\n[evaluate]\nstrategies = ["random", "kmeans"]\ntrials = 6\n'
                   'k_max = 5\nmetrics = ["spearman"]\n[select]\nk = 4\n', encoding="utf-8")
    out = tmp_path / "out"
    assert main(["report", "--benchmark", str(MMLU), "--config", str(cfg), "--out", str(out), "--no-images"]) == 0
    names = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert names == {"report.html", "evaluation.json", "auc.csv", "curves.csv", "auc.tex", "subset.csv",
                     "subset.json", "run.toml", "figures/figures.json"}
    sha = _sha(cfg)
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "Test report" in page and "Which strategies are told apart" in page and sha in page
    doc = json.loads((out / "evaluation.json").read_text())
    assert doc["provenance"]["input_sha256"][str(cfg)] == sha and doc["critical_difference"]["cliques"] is not None
    assert doc["provenance"]["settings"]["config"]["trials"] == 6
    for name in ("auc.csv", "curves.csv", "subset.csv"):
        meta, _ = split_comments((out / name).read_text(encoding="utf-8"))
        assert meta["input_sha256"][str(cfg)] == sha and meta["command"].startswith("subsetsel report")
    assert f'"{sha}"' in (out / "auc.tex").read_text().split(r"\begin{table}")[0]
    assert json.loads((out / "figures" / "figures.json").read_text())["provenance"]["seed"] == 2
    assert read_run_config(out / "run.toml").trials == 6
    # the subset's CSV replays
    assert export.read_sidecar(out / "subset.csv").k == 4
    auc = pd.read_csv(out / "auc.csv", comment="#")
    assert all(v == rounded(v, "auc") for v in auc["auc_mean"])
    # a bad config names the key, and the exit code is 2
    bad = tmp_path / "bad.toml"
    bad.write_text("[evaluate]\ntrails = 3\n")
    capsys.readouterr()
    assert main(["report", "--benchmark", str(MMLU), "--config", str(bad), "--out", str(out)]) == 2
    assert "unknown key 'evaluate.trails'" in capsys.readouterr().err


def test_select_recipe_replays_any_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every file of a report (HTML, figures, LaTeX, CSV, JSON) replays the report's subset; an
    evaluation's own files say which command made them; a file of no provenance is refused."""
    cfg = tmp_path / "run.toml"
    cfg.write_text('seed = 3\n[evaluate]\nstrategies = ["random", "kmeans"]\ntrials = 4\nk_max = 5\n'
                   'metrics = ["spearman"]\n[select]\nstrategy = "kmeans"\nk = 4\n[report]\nmap = "PCA"\n',
                   encoding="utf-8")
    out = tmp_path / "out"
    assert main(["report", "--benchmark", str(MMLU), "--config", str(cfg), "--out", str(out)]) == 0
    chosen = export.read_sidecar(out / "subset.csv").datasets
    assert len(chosen) == 4
    for name in ("report.html", "evaluation.json", "auc.tex", "auc.csv", "curves.csv", "figures/map.png",
                 "figures/map.svg", "figures/curves.svg", "figures/figures.json"):
        side = export.read_sidecar(out / name)
        assert (side.strategy, side.k, side.seed, side.datasets) == ("kmeans", 4, 3, chosen), name
    capsys.readouterr()
    assert main(["select", "--benchmark", str(MMLU), "--recipe", str(out / "figures" / "map.png")]) == 0
    replay = capsys.readouterr()
    assert [line.split(",")[1] for line in replay.out.splitlines() if line[:1].isdigit()] == list(chosen)
    assert "differs" not in replay.err
    ev = tmp_path / "ev.json"
    assert main(["evaluate", "--benchmark", str(MMLU), "--trials", "3", "--k-max", "4", "--strategies",
                 "random,kmeans", "--metrics", "spearman", "--out", str(ev)]) == 0
    capsys.readouterr()
    assert main(["select", "--benchmark", str(MMLU), "--recipe", str(ev)]) == 2
    assert "records no subset, only how it was made: 'subsetsel evaluate --benchmark" in capsys.readouterr().err
    (tmp_path / "plain.txt").write_text("dataset\nmarketing\n", encoding="utf-8")
    with pytest.raises(InputError, match="no subsetsel provenance"):
        export.read_sidecar(tmp_path / "plain.txt")
    forged = tmp_path / "forged.html"  # a recorded subset is checked like a sidecar
    forged.write_text('<script type="application/json" id="provenance">{"settings": {"strategy": "kmeans", '
                      '"k": "=cmd|x", "seed": 0}}</script>', encoding="utf-8")
    with pytest.raises(InputError, match="'k' is missing or mistyped"):
        export.read_sidecar(forged)


def test_report_keeps_the_missing_score_policy_and_draws_the_asked_map(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """run.toml's ``missing`` reads a table with gaps (the default policy refuses it) and is
    written back; the map is the config's method, named in the report (PCA when asked)."""
    scores = pd.read_csv(MMLU / "scores.csv")
    models = sorted(scores["model"].unique())
    gaps = scores[~((scores["model"] == models[0]) & (scores.index % 3 == 0))]
    (tmp_path / "gaps.csv").write_text(gaps.to_csv(index=False), encoding="utf-8")
    common = ["report", "--scores", str(tmp_path / "gaps.csv"), "--no-images"]
    cfg = tmp_path / "run.toml"
    base = 'seed = 1\n[evaluate]\nstrategies = ["random"]\ntrials = 4\nk_max = 4\nmetrics = ["spearman"]\n'
    cfg.write_text(base + '[select]\nk = 3\n', encoding="utf-8")
    assert main([*common, "--config", str(cfg), "--out", str(tmp_path / "refused")]) == 2
    assert "missing" in capsys.readouterr().err
    cfg.write_text('missing = "partial"\n' + base + '[select]\nk = 3\n[report]\nmap = "PCA"\n', encoding="utf-8")
    out = tmp_path / "out"
    assert main([*common, "--config", str(cfg), "--out", str(out)]) == 0
    again = read_run_config(out / "run.toml")
    assert again.missing == "partial" and again.map_method == "PCA"
    assert json.loads((out / "evaluation.json").read_text())["provenance"]["settings"]["config"]["missing"] == "partial"


def test_missing_flag_applies_to_a_benchmark_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--missing`` replaces a folder manifest's policy (it used to be ignored for folders)."""
    folder = tmp_path / "mmlu"
    shutil.copytree(MMLU, folder)
    scores = pd.read_csv(folder / "scores.csv")
    scores.iloc[5:, :].to_csv(folder / "scores.csv", index=False)  # a few cells missing
    select = ["select", "--benchmark", str(folder), "--strategy", "random", "--k", "3"]
    assert main(select) == 2
    assert "--missing" in capsys.readouterr().err
    assert main([*select, "--missing", "partial"]) == 0


def test_report_map_falls_back_to_pca_with_a_reason() -> None:
    from subsetsel_core.cli.report import subset_map

    X = np.random.default_rng(0).normal(size=(4, 3))
    coords, method, why = subset_map(X, "UMAP", 0)
    assert coords.shape == (4, 2) and method == "PCA" and "five datasets" in why
    coords, method, why = subset_map(np.random.default_rng(0).normal(size=(30, 3)), "PCA", 0)
    assert method == "PCA" and why == ""


def test_progress_bar_only_on_a_terminal() -> None:
    from subsetsel_core.cli.report import Progress

    class Stream(io.StringIO):
        def __init__(self, tty: bool) -> None:
            super().__init__()
            self.tty = tty

        def isatty(self) -> bool:
            return self.tty

    quiet, loud = Stream(False), Stream(True)
    for s in (quiet, loud):
        bar = Progress(s)
        bar.show("evaluating", 0.5)
        bar.close()
    assert quiet.getvalue() == ""
    assert "evaluating" in loud.getvalue() and "100 %" in loud.getvalue() and loud.getvalue().endswith("\n")
