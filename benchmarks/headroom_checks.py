"""The price of a-priori selection on every sample and on the real test-only benchmarks → ``docs/results.md``.

For each benchmark: ``subsetsel headroom`` (the six a-priori strategies on one representation
and the three score-aware ones, 10 random halves of the models × T = 50 trials, α = 0.8,
k = 2…20, seed 0), and one Markdown row: the best a-priori entry, the best score-aware entry,
random, all as Spearman-AUC on the held-out models (mean [2.5 %, 97.5 %] over splits × trials),
the price with its interval over splits, and whether a-priori selection reaches the bound (else the share
of the bound's gain over random that it reaches, and the price per k).

- Embedded samples (``sample_data/``): the CLI itself, on the sample's default representation
  (plus the synthetic sample's ``broken`` one, for contrast).
- Test-only benchmarks, read at run time from ``../shared/data/test-only`` and never copied:
  TSC with the ``simple`` table of ``tsc_extra``, MTEB English v1 (task metadata), RecSys
  (interaction statistics) — loaded as :mod:`benchmarks.reproduce_paper` loads them. A folder
  that is absent is reported as skipped.

No benchmark here has model release dates, so every split is a random half; with dates
(``--newest``) the split would be the newest half.

Usage::

    python benchmarks/headroom_checks.py [--trials 50] [--splits 10]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from reproduce_paper import mteb_domain, recsys_domain, tsc_domains  # noqa: E402

from subsetsel_core.cli.main import main as cli_main  # noqa: E402
from subsetsel_core.evaluation.headroom import evaluate_headroom  # noqa: E402
from subsetsel_core.evaluation.result import EvaluationConfig  # noqa: E402

METRIC = "spearman"


def verdict(doc: dict[str, Any]) -> str:
    """At the bound (the price's interval reaches 0), else how much of the bound's gain over random
    the best a-priori entry reaches, and the price per k."""
    p, e = doc["price"], doc["entries"]
    if p["lo"] <= 0:
        return "at the bound"
    auc = {k: e[k]["auc"][METRIC]["mean"] for k in (p["best_a_priori"], p["best_score_aware"], "random")}
    gain = auc[p["best_score_aware"]] - auc["random"]
    share = (auc[p["best_a_priori"]] - auc["random"]) / gain if gain > 0 else float("nan")
    per_k = p["mean"] / max(1, len(doc["ks"]) - 1)
    return f"below: {100 * share:.0f} % of the bound's gain over random; {per_k:.3f} per k"


def row(name: str, rep: str, doc: dict[str, Any], seconds: float) -> str:
    """One Markdown row of a headroom JSON."""
    p, e = doc["price"], doc["entries"]

    def auc(key: str) -> str:
        a = e[key]["auc"][METRIC]
        return f"{a['mean']:.2f} [{a['lo']:.2f}, {a['hi']:.2f}]"

    held = len(doc["splits"][0]["held_out"])
    return (f"| {name} | {rep} | {held} of {doc['config']['n_models']} | {p['best_a_priori']}: "
            f"{auc(p['best_a_priori'])} | {p['best_score_aware']}: {auc(p['best_score_aware'])} | "
            f"{auc('random')} | {p['mean']:+.2f} [{p['lo']:+.2f}, {p['hi']:+.2f}] | {verdict(doc)} | "
            f"{seconds:.0f} s |")


def via_cli(sample: str, rep: str | None, trials: int, splits: int) -> tuple[dict[str, Any], float]:
    """``subsetsel headroom --benchmark sample_data/SAMPLE`` with ``--out``, read back."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "headroom.json"
        args = ["headroom", "--benchmark", str(ROOT / "sample_data" / sample), "--trials", str(trials),
                "--splits", str(splits), "--metric", METRIC, "--out", str(out)]
        if rep:
            args += ["--representation", rep]
        t0 = time.perf_counter()
        if cli_main(args) != 0:
            raise SystemExit(f"subsetsel headroom failed on {sample}")
        return json.loads(out.read_text()), time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    """Run the checks and print the Markdown table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=50)
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--by-judges", action="store_true",
                    help="instead: the price against the number of judging models on every sample (held-out half fixed)")
    args = ap.parse_args(argv)
    if args.by_judges:
        return by_judges(args.trials, args.splits)
    print(f"Spearman-AUC on held-out models (k = 2…20, maximum 18), {args.splits} random halves × T = {args.trials}, "
          "α = 0.8, seed 0\n")
    print("| benchmark | representation | held out | best a-priori | best score-aware | random | price [95 %] | "
          "a-priori vs bound | time |")
    print("|---|---|---|---|---|---|---|---|---|")
    for sample, rep in (("tsc_bakeoff", None), ("mmlu", None), ("synthetic", None), ("synthetic", "broken")):
        doc, secs = via_cli(sample, rep, args.trials, args.splits)
        print(row(sample, rep or f"{doc['config']['representations'][0]} (default)", doc, secs), flush=True)
    cfg = EvaluationConfig(trials=args.trials, metrics=(METRIC, "mae"))
    tsc = tsc_domains()[0]
    domains = [("TSC bake-off (test-only table)", tsc.benchmark, "simple", tsc.representations.get("simple"))]
    for d in (mteb_domain(), recsys_domain()):
        if d is not None:
            name, rep = next(iter(d.representations.items()))
            domains.append((d.title.split(":")[0], d.benchmark, name, rep))
    for title, bench, name, rep in domains:
        if rep is None:
            print(f"| {title} | {name} | skipped: ../shared/data/test-only is absent | | | | | | |")
            continue
        t0 = time.perf_counter()
        res = evaluate_headroom(bench, rep, cfg, splits=args.splits)
        print(row(title, name, res.to_json(METRIC), time.perf_counter() - t0), flush=True)
    return 0


def by_judges(trials: int, splits: int) -> int:
    """One Markdown row per (sample, number of judging models): the price, its 95 % t-interval over splits, its
    spread, and the best entries — the held-out half the same in every row of a sample."""
    from subsetsel_core.evaluation.headroom import model_splits, price_by_judges
    from subsetsel_core.loading.folder import load_benchmark_folder
    from subsetsel_core.text.rounding import text

    print(f"Price of a-priori selection (Spearman AUC, k = 2…20) against the number of judging models; {splits} random "
          f"halves held out × T = {trials}, α = 0.8, seed 0, every a-priori strategy on the sample's default "
          "representation\n")
    print("| sample | models | held out | judging | price | 95 % CI of the mean | spread of split prices | best "
          "score-aware | best a-priori | time |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for sample in ("tsc_bakeoff", "mmlu", "synthetic"):
        lb = load_benchmark_folder(ROOT / "sample_data" / sample)
        rep = lb.representation(lb.manifest.representations[0].name)
        bench = lb.benchmark
        held = len(model_splits(bench, splits=splits, fraction=0.5, seed=0)[0][0].held_out)
        t0 = time.perf_counter()
        cfg = EvaluationConfig(trials=trials, metrics=(METRIC,))
        for judges, p in price_by_judges(bench, rep, cfg, splits=splits):
            print(f"| {sample} | {bench.n_models} | {held} | {judges} | "
                  f"{text(p.mean, 'gain')} | [{text(p.ci_lo, 'gain')}, {text(p.ci_hi, 'gain')}] | "
                  f"[{text(p.lo, 'gain')}, {text(p.hi, 'gain')}] | {p.best_score_aware} | {p.best_a_priori} | "
                  f"{time.perf_counter() - t0:.0f} s |", flush=True)
            t0 = time.perf_counter()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
