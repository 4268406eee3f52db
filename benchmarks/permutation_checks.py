"""Which "helps" survive the permutation test? The checks behind ``docs/results.md``.

For every embedded sample and each of its representations, plus ``--noise`` draws of a
pure-noise representation (six independent standard-normal columns, one seed per draw),
runs the six-strategy protocol (Spearman, α = 0.8, k = 2…20) and its permutation test, and
prints one Markdown row per entry: the gain over random (Spearman-AUC), the shuffled null
(mean ± sd over the shuffles drawn), the family-wise permutation p (Westfall–Young step-down
maxT), the unadjusted permutation p, the conditional Wilcoxon p *vs random on these pools*
(Holm) and the verdict. A sample's own representations form one family (one shuffle for all
of them, as ``subsetsel evaluate`` with several representations); each noise draw is a family
of its own. Nothing is asserted; the last lines count how often each test says "better than
random" on the noise draws.

Usage::

    python benchmarks/permutation_checks.py [--trials 50] [--permutations 199] [--noise 5]
                                            [--samples tsc_bakeoff,mmlu,synthetic] [--jobs 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from subsetsel_core.benchmark import Benchmark
from subsetsel_core.evaluation.parallel import process_mapper
from subsetsel_core.evaluation.permutation import LEVEL, permutation_test
from subsetsel_core.evaluation.protocol import evaluate
from subsetsel_core.evaluation.result import EvaluationConfig
from subsetsel_core.loading.folder import load_benchmark_folder
from subsetsel_core.representations.descriptors import Representation
from subsetsel_core.text.rounding import format_p

ROOT = Path(__file__).resolve().parent.parent


def noise(datasets: tuple[str, ...], draw: int) -> Representation:
    """Six independent N(0, 1) columns (seed ``draw``)."""
    X = np.random.default_rng(1000 + draw).standard_normal((len(datasets), 6))
    return Representation(f"noise-{draw}", X, tuple(f"z{i}" for i in range(6)), tuple(datasets))


def _domains(args: argparse.Namespace) -> list[tuple[str, Benchmark, list[Representation]]]:
    out = []
    if args.paper_domains:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from reproduce_paper import mteb_domain, recsys_domain, tsc_domains

        full, *parts = tsc_domains()
        shipped = {"ucr_info", "description", "minilm"}
        out.append(("TSC", full.benchmark, [r for n, r in full.representations.items() if n not in shipped]))
        for d in [*parts, mteb_domain(), recsys_domain()]:
            if d is not None:
                out.append((d.title.split(":")[0], d.benchmark, list(d.representations.values())))
        return out
    for sample in args.samples.split(","):
        loaded = load_benchmark_folder(ROOT / "sample_data" / sample)
        bench = loaded.benchmark
        reps = [loaded.representation(s.name) for s in loaded.manifest.representations]
        out.append((sample, bench, reps))
        out += [(sample, bench, [noise(bench.datasets, d)]) for d in range(args.noise)]
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the checks and print the Markdown table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=50)
    ap.add_argument("--permutations", type=int, default=199)
    ap.add_argument("--noise", type=int, default=5, help="noise draws per sample")
    ap.add_argument("--samples", default="tsc_bakeoff,mmlu,synthetic")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes of the shuffles")
    ap.add_argument("--paper-domains", action="store_true",
                    help="instead: the paper's other domains (TSC tsfresh/catch22 tables, MTEB, RecSys; test-only "
                         "data read at run time by benchmarks/reproduce_paper.py, never copied)")
    args = ap.parse_args(argv)
    mapper = process_mapper(args.jobs) if args.jobs > 1 else None  # the protocol's trials
    cfg = EvaluationConfig(trials=args.trials, metrics=("spearman",), batch_size=args.trials)
    print(f"T = {args.trials} trials, B ≤ {args.permutations} shuffles (sequential stop after 10 on the family), "
          "α = 0.8, k = 2…20, seed 0, step-down maxT over every entry of a family\n")
    print("| benchmark | representation | strategy | gain | shuffled: mean ± sd (shuffles) | p permutation (maxT) "
          "| p raw | p vs random on these pools (Holm) | verdict |")
    print("|---|---|---|---|---|---|---|---|---|")
    noise_helps = noise_wilcoxon = noise_entries = noise_families = noise_family_helps = 0
    for sample, bench, reps in _domains(args):
        t0 = time.perf_counter()
        by_name = {r.name: r for r in reps}
        res = evaluate(bench, by_name, cfg, mapper=mapper)
        pt = permutation_test(bench, by_name, cfg, permutations=args.permutations, observed=res, jobs=args.jobs)
        is_noise = reps[0].name.startswith("noise-")
        for e in res.entries:
            k = e.key
            if k not in pt.gain:
                continue
            mu, sd = pt.null_summary(k)
            pw = res.stats[k].p_vs_random.get("spearman")
            word = "**helps**" if pt.helps(k) else "no evidence"
            spread = f"{mu:+.2f} ± {sd:.2f} ({pt.shuffles()})" if pt.shuffles() > 1 else f"{mu:+.2f} (1)"
            print(f"| {sample} | {e.representation} | {e.strategy} | {pt.gain[k]['spearman']:+.2f} | {spread} | "
                  f"{format_p(pt.p_adjusted[k]['spearman'])} | {format_p(pt.p_raw[k]['spearman'])} | "
                  f"{format_p(pw)} | {word} |")
            if is_noise:
                noise_entries += 1
                noise_helps += pt.helps(k)
                noise_wilcoxon += pw is not None and pw < LEVEL and pt.gain[k]["spearman"] > 0
        if is_noise:
            noise_families += 1
            noise_family_helps += any(pt.helps(k) for k in pt.keys)
        sys.stdout.flush()
        print(f"<!-- {sample} {', '.join(by_name)}: {time.perf_counter() - t0:.0f} s, {pt.drawn} shuffles"
              f"{', sequential stop' if pt.stopped.get('spearman') else ''} -->")
    print(f"\nnoise draws: {noise_families} families, {noise_entries} entries; families with a 'helps' by the "
          f"permutation test: {noise_family_helps}; entries: {noise_helps}; 'beats random' by the conditional "
          f"Wilcoxon test: {noise_wilcoxon}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
