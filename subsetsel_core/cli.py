"""Command line: ``subsetsel select | evaluate`` (also ``python -m subsetsel_core``).

Bad input exits with code 2 and one short message on stderr naming the file, the column
or row and the fix; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from subsetsel_core.benchmark import MISSING_POLICIES, Benchmark, load_scores
from subsetsel_core.descriptors import Representation, build_representation, load_descriptors
from subsetsel_core.errors import InputError, SubsetselError
from subsetsel_core.evaluation.parallel import dask_mapper, process_mapper
from subsetsel_core.evaluation.protocol import EvaluationConfig, EvaluationResult, evaluate
from subsetsel_core.export import safe_frame
from subsetsel_core.metrics import METRICS
from subsetsel_core.selection import select_datasets
from subsetsel_core.strategies import STRATEGIES


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"subsetsel: error: {message}\n")
        raise SystemExit(2)


def _names(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _aliases(values: Sequence[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in values or []:
        if "=" not in v:
            raise InputError(f"--alias '{v}' must look like NAME_IN_FEATURES=NAME_IN_SCORES.")
        a, b = v.split("=", 1)
        out[a.strip()] = b.strip()
    return out


def _data_args(p: argparse.ArgumentParser, scores_flag: str = "--scores") -> None:
    g = p.add_argument_group("data (a benchmark folder, or score and descriptor files)")
    g.add_argument("--benchmark", metavar="FOLDER", help="benchmark folder with a manifest.json (e.g. sample_data/tsc_bakeoff)")
    g.add_argument("--representation", metavar="NAME[,NAME]", type=_names, default=[],
                   help="with --benchmark: the manifest's representation(s) to use (default: the first)")
    g.add_argument(scores_flag, dest="scores", metavar="FILE", help="score table: CSV, CSV.gz or Parquet")
    g.add_argument("--features", action="append", metavar="FILE",
                   help="descriptor table (repeat to combine several into one representation)")
    g.add_argument("--lower-is-better", action="store_true", help="scores are errors or losses")
    g.add_argument("--dataset-column", default="dataset", metavar="C")
    g.add_argument("--model-column", default="model", metavar="C")
    g.add_argument("--score-column", default="score", metavar="C")
    g.add_argument("--fold-column", default="fold", metavar="C", help="fold/seed column (used when present)")
    g.add_argument("--wide", action="store_true", help="scores are wide: first column dataset, one column per model")
    g.add_argument("--missing", choices=MISSING_POLICIES, default="error", help="what to do with missing scores")
    g.add_argument("--alias", action="append", metavar="A=B", help="descriptor name A means dataset B of the scores")
    g.add_argument("--no-text", action="store_true", help="ignore free-text descriptor columns")
    g.add_argument("--name", help="benchmark name shown in outputs")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``subsetsel``."""
    p = _Parser(prog="subsetsel", description="Choose a subset of a benchmark's datasets that preserves the model ranking.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("select", help="choose k datasets")
    _data_args(s)
    s.add_argument("--strategy", required=True, choices=STRATEGIES)
    s.add_argument("--k", type=int, help="number of datasets (or give --budget)")
    s.add_argument("--budget", type=float, metavar="SHARE",
                   help="choose under a budget: share (0–1] of the benchmark's total cost")
    s.add_argument("--cost-column", metavar="C", help="descriptor column of per-dataset costs (default: estimated from size columns)")
    s.add_argument("--coverage", action="store_true", help="add which unchosen datasets each chosen one stands for")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--include", type=_names, default=[], metavar="D1,D2", help="datasets chosen first")
    s.add_argument("--exclude", type=_names, default=[], metavar="D3", help="datasets never chosen")
    s.add_argument("--format", choices=("csv", "json"), default="csv")
    s.add_argument("--out", metavar="PATH", help="write here instead of standard output")

    e = sub.add_parser("evaluate", help="bootstrap protocol: curves, AUC, tests against random")
    _data_args(e)
    e.add_argument("--strategies", type=_names, default=list(STRATEGIES), metavar="S1,S2")
    e.add_argument("--trials", type=int, default=200)
    e.add_argument("--alpha", type=float, default=0.8, help="dataset-pool fraction")
    e.add_argument("--model-fraction", type=float, default=1.0, help="model-pool fraction β")
    e.add_argument("--k-min", type=int, default=2)
    e.add_argument("--k-max", type=int, default=20)
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--metrics", type=_names, default=list(METRICS), metavar="M1,M2")
    e.add_argument("--out", metavar="result.json")
    e.add_argument("--budget", type=float, metavar="MAX_SHARE",
                   help="curves against cost instead of k: 15 budget levels up to this share of the total cost")
    e.add_argument("--cost-column", metavar="C", help="descriptor column of per-dataset costs")
    e.add_argument("--jobs", type=int, default=1, help="worker processes on this machine")
    e.add_argument("--scheduler", metavar="ADDRESS", help="run the trials on a Dask cluster (tcp://host:8786)")

    c = sub.add_parser("check", help="does a representation track what makes models differ?")
    _data_args(c)
    c.add_argument("--permutations", type=int, default=999)
    c.add_argument("--trials", type=int, default=50, help="trials of the quick protocol run")
    c.add_argument("--seed", type=int, default=0)

    a = sub.add_parser("advise", help="how many datasets are needed to reach a target agreement")
    _data_args(a)
    a.add_argument("--metric", default="spearman", choices=list(METRICS))
    a.add_argument("--target", type=float, default=0.9)
    a.add_argument("--strategies", type=_names, default=list(STRATEGIES), metavar="S1,S2")
    a.add_argument("--trials", type=int, default=200)
    a.add_argument("--alpha", type=float, default=0.8)
    a.add_argument("--k-min", type=int, default=2)
    a.add_argument("--k-max", type=int, default=20)
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--jobs", type=int, default=1)

    g = sub.add_parser("generalise", help="does the winner on today's models hold on held-out (newer) models?")
    _data_args(g)
    g.add_argument("--new-models", type=_names, default=[], metavar="M1,M2", help="the held-out models")
    g.add_argument("--model-dates", metavar="FILE", help="table with model and release date columns: hold out the newest")
    g.add_argument("--date-column", default=None, help="default: release_date, date, released or release")
    g.add_argument("--fraction", type=float, default=0.5, help="share of models held out")
    g.add_argument("--strategies", type=_names, default=list(STRATEGIES), metavar="S1,S2")
    g.add_argument("--trials", type=int, default=100)
    g.add_argument("--alpha", type=float, default=0.8)
    g.add_argument("--k-min", type=int, default=2)
    g.add_argument("--k-max", type=int, default=20)
    g.add_argument("--metric", default="spearman", choices=list(METRICS))
    g.add_argument("--seed", type=int, default=0)

    pl = sub.add_parser("place", help="estimate a new model's full-benchmark rank from its subset scores")
    _data_args(pl, scores_flag="--reference")
    pl.add_argument("--subset", required=True, metavar="subset.csv", help="the chosen subset (a 'dataset' column)")
    pl.add_argument("--scores", dest="new_scores", required=True, metavar="new_model.csv",
                    help="the new model's scores: dataset[,fold],score")
    pl.add_argument("--model-name", default="new model")
    pl.add_argument("--seed", type=int, default=0)
    return p


def _load_folder(args: argparse.Namespace) -> tuple[Benchmark, Any, list[Representation]]:
    from subsetsel_core.io.folder import load_benchmark_folder

    lb = load_benchmark_folder(args.benchmark)
    names = args.representation or list(lb.manifest.representation_names[:1])
    reps = [lb.representation(n, text="drop" if args.no_text else "tfidf") for n in names]
    desc = lb.descriptors[names[0]] if names else None
    return lb.benchmark, desc, reps


def _load(args: argparse.Namespace) -> tuple[Benchmark, Any, list[Representation]]:
    if args.benchmark:
        if args.scores or args.features:
            raise InputError("give either --benchmark FOLDER or --scores/--features files, not both.")
        return _load_folder(args)
    if not args.scores:
        raise InputError("no data: give --benchmark FOLDER, or --scores FILE (and --features FILE).")
    bench = load_scores(
        args.scores, dataset_column=args.dataset_column, model_column=args.model_column,
        score_column=args.score_column, fold_column=args.fold_column, wide=args.wide,
        higher_is_better=not args.lower_is_better, missing=args.missing, name=args.name,
    )
    if not args.features:
        return bench, None, []
    desc = load_descriptors(args.features, dataset_column=args.dataset_column, aliases=_aliases(args.alias))
    name = "+".join(Path(f).name.split(".")[0] for f in args.features)
    rep = build_representation(desc, bench.datasets, name=name, text="drop" if args.no_text else "tfidf")
    return bench, desc, [rep]


def _warn(*reports: Any) -> None:
    for r in reports:
        for f in r.findings:
            if f.level == "warning":
                sys.stderr.write(f"warning: {f.message}\n")


def _write(text: str, out: str | None) -> None:
    if out:
        try:
            Path(out).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write {out}: {exc.strerror}. Check the folder exists and is writable.") from None
    else:
        sys.stdout.write(text)


def cmd_select(args: argparse.Namespace) -> int:
    """``subsetsel select``."""
    bench, desc, reps = _load(args)
    _warn(bench.report, *[r.report for r in reps])
    if len(reps) > 1:
        raise InputError("select uses one representation; name one with --representation.")
    rep = reps[0] if reps else None
    if args.budget is not None:
        return _select_budget(args, bench, desc, rep)
    if args.k is None:
        raise InputError("give the number of datasets with --k K (or a budget with --budget SHARE).")
    sel = select_datasets(bench, rep, args.strategy, args.k, seed=args.seed, include=args.include, exclude=args.exclude)
    df = sel.to_frame(desc)
    if args.coverage:
        if rep is None:
            raise InputError("--coverage needs descriptors (--features or --benchmark).")
        df = _with_coverage(df, rep, list(sel.datasets))
    if args.format == "json":
        payload = {**sel.metadata(), "subset": json.loads(df.to_json(orient="records"))}
        _write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", args.out)
    else:
        _write(safe_frame(df).to_csv(index=False), args.out)
    return 0


def _with_coverage(df: Any, rep: Representation, chosen: list[str]) -> Any:
    from subsetsel_core.coverage import coverage

    cov = coverage(rep, chosen)
    members = cov.members()
    df = df.copy()
    df["n_represented"] = [len(members[d]) for d in chosen]
    df["represents"] = [";".join(members[d]) for d in chosen]
    sys.stderr.write(f"covering radius {cov.radius:.3f}; not covered well: {', '.join(cov.poorly_covered) or 'none'}\n")
    return df


def _costs(args: argparse.Namespace, bench: Benchmark, desc: Any) -> tuple[Any, str]:
    from subsetsel_core.evaluation.budget import estimate_costs

    if desc is None:
        raise InputError("a budget needs descriptors with a cost or size column (--features or --benchmark).")
    return estimate_costs(desc, bench.datasets, cost_column=args.cost_column)


def _select_budget(args: argparse.Namespace, bench: Benchmark, desc: Any, rep: Representation | None) -> int:
    import numpy as np

    from subsetsel_core.evaluation.budget import select_under_budget
    from subsetsel_core.selection import subset_agreement

    if not 0 < args.budget <= 1:
        raise InputError(f"--budget is a share of the total cost in (0, 1]; got {args.budget}.")
    costs, how = _costs(args, bench, desc)
    X = rep.X if rep is not None else np.zeros((bench.n_datasets, 0))
    idx = select_under_budget(X, costs, args.budget * costs.sum(), args.strategy, rng=args.seed)
    if len(idx) == 0:
        raise InputError(f"no dataset fits a budget of {args.budget:g} of the total cost; raise --budget.")
    chosen = [bench.datasets[i] for i in idx]
    df = desc.reindex(chosen).reset_index(drop=True) if desc is not None else None
    import pandas as pd

    out = pd.DataFrame({"order": range(1, len(chosen) + 1), "dataset": chosen, "cost": costs[idx]})
    if df is not None:
        out = pd.concat([out, df[[c for c in df.columns if c not in ("order", "dataset", "cost")]]], axis=1)
    agree = subset_agreement(bench, idx)
    sys.stderr.write(f"costs {how}; spent {costs[idx].sum() / costs.sum():.1%} of the total on {len(idx)} datasets; "
                     f"Spearman {agree['spearman']:.3f}, Kendall {agree['kendall']:.3f}, MAE {agree['mae']:.2f}\n")
    _write(safe_frame(out).to_csv(index=False), args.out)
    return 0


def format_table(res: EvaluationResult) -> str:
    """Readable AUC table: one block per metric."""
    lines = [
        f"benchmark {res.info.get('benchmark')}: {res.info.get('n_datasets')} datasets, "
        f"{res.info.get('n_models')} models; {res.trials_done} trials, pools of "
        f"{res.info.get('pool_datasets')} datasets, k = {res.ks[0]}…{res.ks[-1]}",
        "AUC = trapezoid over k (mean ± std [2.5%, 97.5%]); p = one-sided Wilcoxon vs random, Holm-corrected",
    ]
    width = max(len(k) for k in res.keys) + 2
    fr = res.friedman()
    for m in res.config.metrics:
        better = "higher" if METRICS[m].higher_is_better else "lower"
        fp = fr.get(m)
        lines.append("")
        lines.append(f"{METRICS[m].label} ({better} is better)" + (f"; Friedman p = {fp:.3g}" if fp is not None else ""))
        for e in res.entries:
            st = res.stats[e.key]
            a = st.auc[m]
            p = st.p_vs_random.get(m)
            ptxt = "" if e.strategy == "random" else ("  p = n/a" if p is None else f"  p = {p:.3g}")
            lines.append(f"  {e.key:<{width}} {a.mean:9.3f} ± {a.std:7.3f}  [{a.lo:.3f}, {a.hi:.3f}]{ptxt}")
    return "\n".join(lines) + "\n"


def cmd_evaluate(args: argparse.Namespace) -> int:
    """``subsetsel evaluate``."""
    bench, desc, reps = _load(args)
    args._desc = desc
    if not reps and any(s != "random" for s in args.strategies):
        raise InputError("evaluate needs descriptors: give --features FILE (or --benchmark FOLDER).")
    _warn(bench.report, *[r.report for r in reps])
    cfg = EvaluationConfig(
        strategies=tuple(args.strategies), trials=args.trials, alpha=args.alpha, beta=args.model_fraction,
        k_min=args.k_min, k_max=args.k_max, seed=args.seed, metrics=tuple(args.metrics),
    )
    if args.budget is not None:
        return _evaluate_budget(args, bench, reps, cfg)
    mapper = None
    if args.scheduler:
        mapper = dask_mapper(args.scheduler)
    elif args.jobs != 1:
        mapper = process_mapper(args.jobs)
    res = evaluate(bench, reps, cfg, mapper=mapper)
    if args.out:
        _write(json.dumps(res.to_json_dict(), indent=1) + "\n", args.out)
        sys.stderr.write(f"wrote {args.out}\n")
    else:
        _write(format_table(res), None)
    return 0


def _evaluate_budget(args: argparse.Namespace, bench: Benchmark, reps: list[Representation],
                     cfg: EvaluationConfig) -> int:
    import numpy as np

    from subsetsel_core.evaluation.budget import BUDGET_STRATEGIES, evaluate_budget

    if not 0 < args.budget <= 1:
        raise InputError(f"--budget is the largest share of the total cost in (0, 1]; got {args.budget}.")
    if len(reps) != 1:
        raise InputError("budget curves use one representation; name it with --representation.")
    costs, how = _costs(args, bench, args._desc)
    strategies = [s for s in cfg.strategies if s in BUDGET_STRATEGIES]
    levels = np.round(np.linspace(args.budget / 15, args.budget, 15), 4)
    res = evaluate_budget(bench, reps[0], costs, budgets=levels, strategies=strategies, trials=cfg.trials,
                          alpha=cfg.alpha, seed=cfg.seed, metrics=cfg.metrics, how=how)
    frame = res.to_frame()
    if args.out:
        frame.to_csv(args.out, index=False)
        sys.stderr.write(f"wrote {args.out}\n")
    else:
        sys.stdout.write(f"costs {how}\n")
        piv = frame[frame["metric"] == cfg.metrics[0]].pivot(index="budget", columns="key", values="mean")
        sys.stdout.write(f"{METRICS[cfg.metrics[0]].label} (mean over trials) by budget share:\n{piv.to_string(float_format=lambda v: f'{v:.3f}')}\n")
        for e in res.entries:
            p = res.stats[e.key].p_vs_random.get(cfg.metrics[0])
            sys.stdout.write(f"  {e.key}: AUC {res.stats[e.key].auc[cfg.metrics[0]].mean:.3f}"
                             + ("" if e.strategy == "random" else f", p vs random = {p:.3g}" if p is not None else "") + "\n")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """``subsetsel check``: Mantel test, CKA and a quick protocol run per representation."""
    from subsetsel_core.evaluation.check import check_representation, overall_verdict

    bench, _, reps = _load(args)
    if not reps:
        raise InputError("check needs descriptors: give --features FILE or --benchmark FOLDER.")
    res = evaluate(bench, reps, EvaluationConfig(trials=args.trials, seed=args.seed, metrics=("spearman",)))
    base = res.stats["random"].auc["spearman"].mean
    for rep in reps:
        chk = check_representation(bench, rep, permutations=args.permutations, seed=args.seed)
        keys = [e.key for e in res.entries if e.representation == rep.name]
        best = max(keys, key=lambda k: res.stats[k].auc["spearman"].mean)
        gain = res.stats[best].auc["spearman"].mean - base
        p = res.stats[best].p_vs_random.get("spearman")
        sys.stdout.write(
            f"{rep.name}: Mantel r = {chk.mantel_r:.3f} (p = {chk.mantel_p:.3g}), CKA = {chk.cka:.3f}; "
            f"quick run ({args.trials} trials): best {best}, Spearman AUC {gain:+.3f} vs random"
            f"{'' if p is None else f' (p = {p:.3g})'}\n  {overall_verdict(chk, best, gain, p)}\n")
    return 0


def cmd_advise(args: argparse.Namespace) -> int:
    """``subsetsel advise``: smallest k whose 95 % band meets the target."""
    from subsetsel_core.evaluation.advice import advise

    bench, _, reps = _load(args)
    cfg = EvaluationConfig(strategies=tuple(args.strategies), trials=args.trials, alpha=args.alpha,
                           k_min=args.k_min, k_max=args.k_max, seed=args.seed)
    res = evaluate(bench, reps, cfg, mapper=process_mapper(args.jobs) if args.jobs != 1 else None)
    for a in advise(res, metric=args.metric, target=args.target):
        sys.stdout.write(a.sentence(int(res.ks[-1])) + "\n")
    return 0


def cmd_place(args: argparse.Namespace) -> int:
    """``subsetsel place``: a new model's estimated position from its subset scores."""
    from subsetsel_core.io.tables import read_table
    from subsetsel_core.placement import place_model, read_model_scores

    bench, _, _ = _load(args)
    sub = read_table(args.subset)
    if "dataset" not in sub.columns:
        raise InputError(f"{Path(args.subset).name}: no 'dataset' column; give the CSV written by 'subsetsel select'.")
    subset = [str(d).strip() for d in sub["dataset"]]
    scores = read_model_scores(args.new_scores, dataset_column=args.dataset_column,
                               score_column=args.score_column, fold_column=args.fold_column)
    pl = place_model(bench, subset, scores, name=args.model_name, seed=args.seed)
    lo, hi = pl.mean_rank_interval
    sys.stdout.write(pl.sentence() + f"\nestimated mean rank {pl.estimated_mean_rank:.2f} [{lo:.2f}, {hi:.2f}] "
                     f"(scale of the {pl.n_models - 1} existing models)\n")
    return 0


def cmd_generalise(args: argparse.Namespace) -> int:
    """``subsetsel generalise``: the protocol on judging vs held-out models."""
    from subsetsel_core.evaluation.generalisation import evaluate_generalisation, read_release_dates

    bench, _, reps = _load(args)
    dates = None
    if args.model_dates:
        dates = read_release_dates(Path(args.model_dates), bench.models, date_column=args.date_column)
    cfg = EvaluationConfig(strategies=tuple(args.strategies), trials=args.trials, alpha=args.alpha,
                           k_min=args.k_min, k_max=args.k_max, seed=args.seed)
    res = evaluate_generalisation(bench, reps, cfg, new_models=args.new_models, release_dates=dates,
                                  fraction=args.fraction, seed=args.seed)
    sys.stdout.write(res.to_frame(args.metric).to_string(index=False, float_format=lambda v: f"{v:.4g}") + "\n")
    sys.stdout.write(res.verdict(args.metric) + "\n")
    return 0


COMMANDS = {"generalise": cmd_generalise, "select": cmd_select, "evaluate": cmd_evaluate, "check": cmd_check, "advise": cmd_advise,
            "place": cmd_place}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code (0 ok, 2 bad input, 1 unexpected failure)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except InputError as exc:
        sys.stderr.write(f"subsetsel: error: {exc}\n")
        return 2
    except SubsetselError as exc:
        sys.stderr.write(f"subsetsel: {exc}\n")
        return 1
    except MemoryError:
        sys.stderr.write("subsetsel: error: out of memory; use fewer trials or a smaller benchmark.\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("subsetsel: interrupted\n")
        return 130
    except Exception as exc:  # noqa: BLE001 - last line of defence: no traceback for users
        sys.stderr.write(f"subsetsel: unexpected error ({type(exc).__name__}: {exc}). Please report it.\n")
        return 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
