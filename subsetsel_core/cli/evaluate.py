"""Command line: ``subsetsel evaluate | check | advise | generalise``."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from subsetsel_core.cli import data as D
from subsetsel_core.cli.args import readable
from subsetsel_core.errors import InputError
from subsetsel_core.settings.table import SETTINGS
from subsetsel_core.strategies import BASELINE
from subsetsel_core.text import rounding as R
from subsetsel_core.text import strict_json

if TYPE_CHECKING:
    from subsetsel_core.evaluation.permutation import PermutationTest
    from subsetsel_core.evaluation.result import EvaluationConfig, EvaluationResult
    from subsetsel_core.evaluation.stability import Stability
    from subsetsel_core.representations.descriptors import Representation


def _config(args: argparse.Namespace, **extra: Any) -> EvaluationConfig:
    from subsetsel_core.evaluation.result import EvaluationConfig

    return EvaluationConfig(strategies=tuple(args.strategies), trials=args.trials, alpha=args.alpha, k_min=args.k_min,
                            k_max=args.k_max, seed=args.seed, **extra)


def _mapper(args: argparse.Namespace) -> Any:
    from subsetsel_core.evaluation.parallel import dask_mapper, process_mapper

    if getattr(args, "scheduler", None):
        return dask_mapper(args.scheduler)
    return process_mapper(args.jobs) if args.jobs not in (None, 1) else None


def _data(args: argparse.Namespace, *, tables: bool = True) -> tuple[D.Data, list[Representation]]:
    from subsetsel_core.strategies import REGISTRY

    data = D.load(args, D.requested_tables(args) if tables else None)
    D.warn(data.benchmark.report)
    reps = [rep for _, rep in D.representations(args, data, args.seed)]
    strategies = getattr(args, "strategies", None)
    if not reps and (strategies is None or any(REGISTRY[s].uses_features for s in strategies if s in REGISTRY)):
        raise D.no_descriptors(args.command, "strategies other than random" if strategies is not None
                               else "a representation check")
    return data, reps


def _check_names(args: argparse.Namespace) -> None:
    from subsetsel_core.ranks.metrics import METRICS
    from subsetsel_core.strategies import STRATEGIES, a_priori

    bad = [s for s in args.strategies if s not in STRATEGIES]
    if bad:
        a_priori(bad[0])  # a score-aware strategy: refused, pointing to 'subsetsel headroom'
        raise InputError(f"unknown strategy '{bad[0]}'; the strategies are {', '.join(STRATEGIES)}.", field="strategy")
    bad = [m for m in getattr(args, "metrics", ()) if m not in METRICS]
    if bad:
        raise InputError(f"unknown metric '{bad[0]}'; the metrics are {', '.join(METRICS)}.", field="metric")


def format_table(res: EvaluationResult, permutation: PermutationTest | None = None,
                 stability: Stability | None = None, untested: str = "--permutations 0") -> str:
    """Readable AUC table (one block per metric), each metric's verdict and the ceiling (``untested``: why
    there is no permutation test)."""
    from subsetsel_core.evaluation.permutation import p_phrase, verdict_metric
    from subsetsel_core.evaluation.verdict import (
        NOT_TESTED,
        evaluation_verdict,
        gain_note,
        settings_label,
        shown_gain,
    )
    from subsetsel_core.ranks.metrics import METRICS
    from subsetsel_core.text import rounding as R

    lines = [
        f"benchmark {res.info.get('benchmark')}: {res.info.get('n_datasets')} datasets, "
        f"{res.info.get('n_models')} models; {settings_label(res)}, pools of {res.info.get('pool_datasets')} datasets",
        "AUC = trapezoid over k (mean ± std [2.5%, 97.5%]); " + gain_note(res, permutation)
        + "; 'vs random on these pools' = one-sided Wilcoxon on the paired trials (Holm), conditional on the "
        "descriptors, never a verdict",
        permutation.describe() if permutation is not None else f"permutation test: {NOT_TESTED} ({untested})",
    ]
    covered = res.coverage_sentence()
    if covered:
        lines.append(covered)
    width = max(len(k) for k in res.keys) + 2
    fr = res.friedman()
    headline = verdict_metric(res.config)
    for m in res.config.metrics:
        better = "higher" if METRICS[m].higher_is_better else "lower"
        fp = fr.get(m)
        lines.append("")
        lines.append(f"{METRICS[m].label} ({better} is better)" + (f"; Friedman {p_phrase(fp)}" if fp is not None else ""))
        for e in res.entries:
            a = res.stats[e.key].auc[m]
            ptxt = ""
            if e.strategy != BASELINE:
                ptxt = (f"  gain {R.text(shown_gain(res, permutation, e.key, m), 'gain')}; Wilcoxon "
                        f"{p_phrase(res.stats[e.key].p_vs_random.get(m))} vs random on these pools")
                if permutation is None:
                    ptxt += f"; {NOT_TESTED}"
                elif e.key in permutation.gain and permutation.complete:
                    ptxt += f"; permutation test {p_phrase(permutation.p_adjusted[e.key][m])} (maxT)"
                elif e.key in permutation.gain:
                    ptxt += f"; permutation test {permutation.stopped_phrase()}"
            lines.append(f"  {e.key:<{width}} {R.text(a.mean, 'auc'):>9} ± {R.text(a.std, 'auc'):<7}  "
                         f"[{R.text(a.lo, 'auc')}, {R.text(a.hi, 'auc')}]{ptxt}")
        if stability is not None and m in stability.bands:
            lines.append(f"  full benchmark's own stability (a yardstick, not a bound): {stability.band_text(m)} per k")
        if m == headline:
            lines.append("  verdict: " + evaluation_verdict(res, permutation, m).text)
        else:  # "helps" is read on one metric; the others' families are not corrected across metrics
            lines.append(f"  on this metric alone (the verdict is read on {METRICS[headline].label}; each metric is "
                         "its own family, not corrected across metrics): " + evaluation_verdict(res, permutation, m).text)
    if stability is not None:
        lines.append("")
        lines.append(f"ceiling ({stability.describe()}): {stability.summary()}")
    return "\n".join(lines) + "\n"


def cmd_evaluate(args: argparse.Namespace) -> int:
    """``subsetsel evaluate``: curves, AUC, tests against random, the permutation test and the ceiling."""
    from subsetsel_core.evaluation.protocol import evaluate
    from subsetsel_core.evaluation.stability import full_stability
    from subsetsel_core.evaluation.summary import evaluation_json

    _check_names(args)
    data, reps = _data(args, tables=args.budget is None)
    cfg = _config(args, beta=args.model_fraction, metrics=tuple(args.metrics))
    if args.budget is not None:
        if getattr(args, "latex", None):
            raise InputError("--latex writes the AUC table over k; leave out --budget.", field="budget")
        return _evaluate_budget(args, data, reps, cfg)
    if args.permutation_trials is not None and args.permutation_trials > cfg.trials:
        raise InputError(f"--permutation-trials {args.permutation_trials} exceeds --trials {cfg.trials}.",
                         field="permutations")
    if getattr(args, "theory", False) and not args.out:
        raise InputError("--theory adds FAFI's coverage bound to the JSON; give --out result.json too.",
                         field="config")
    permutations = _permutations_asked(args)
    mapper = _mapper(args)
    res = evaluate(data.benchmark, reps, cfg, mapper=mapper)
    # the verdict needs two trials; a one-trial run (a smoke test) says so and runs no shuffle
    tested = permutations and res.trials_done >= 2 and any(e.strategy != BASELINE for e in res.entries)
    permutation = _permutation(args, data, reps, res, mapper, permutations) if tested else None
    stability = full_stability(data.benchmark, resamples=args.resamples, seed=cfg.seed, metrics=cfg.metrics)
    if getattr(args, "latex", None):
        from subsetsel_core.outputs.latex import auc_latex
        from subsetsel_core.outputs.provenance import from_arguments

        D.write(auc_latex(res, provenance=from_arguments(args)), args.latex)
        D.say(f"wrote {args.latex}", err=True)
    if args.out:
        from subsetsel_core.outputs.provenance import from_arguments

        theory = None
        if getattr(args, "theory", False):  # the GP fit only when asked for
            from subsetsel_core.evaluation.theory import entry_theories

            theory = entry_theories(data.benchmark, {rep.name: rep for rep in reps}, res)
        out = evaluation_json(res, permutation, stability, theory, provenance=from_arguments(args))
        _note_names(out, reps)
        D.write(strict_json.dumps(out, indent=1, ensure_ascii=True) + "\n", args.out)
        D.say(f"wrote {args.out}", err=True)
    else:
        why = "--permutations 0" if not permutations else "a verdict needs at least two trials"
        D.write(format_table(res, permutation, stability, why), None)
    return 0


def _note_names(out: dict[str, Any], reps: list[Representation]) -> None:
    """Add to the JSON's ``note`` that names are weak descriptors, when a representation is built from them."""
    from subsetsel_core.representations.names import WEAK_NOTE, uses_names

    named = [r.name for r in reps if uses_names(r)]
    if named:
        note = f"{', '.join(repr(n) for n in named)}: {WEAK_NOTE}"
        out["note"] = f"{str(out['note']).rstrip('.')}. {note}" if out.get("note") else note


def _permutations_asked(args: argparse.Namespace) -> int:
    """B as asked (default :data:`~subsetsel_core.evaluation.permutation.PERMUTATIONS`), checked against the
    installation's ``max_permutations`` before anything runs."""
    from subsetsel_core.evaluation.permutation import PERMUTATIONS, check_permutations

    return check_permutations(PERMUTATIONS if args.permutations is None else args.permutations)


#: Trials T′ the permutation test uses unless ``--permutation-trials`` says otherwise (at most T).
PERMUTATION_TRIALS: int = SETTINGS["permutation_trials"].widget_default


def _permutation(args: argparse.Namespace, data: D.Data, reps: list[Representation], res: EvaluationResult,
                 mapper: Any, permutations: int) -> PermutationTest:
    from subsetsel_core.evaluation.permutation import permutation_test, verdict_metric

    metric = verdict_metric(res.config)
    trials = args.permutation_trials or min(PERMUTATION_TRIALS, res.config.trials)
    return permutation_test(data.benchmark, reps, res.config, permutations=permutations, trials=trials,
                            observed=res, verdict_metric=metric, mapper=mapper if args.scheduler else None,
                            jobs=args.jobs, progress=_progress("permutation test"))


def _progress(what: str) -> Any:
    """A progress callback writing ``what: 42 %`` to standard error when it is a terminal."""
    if not sys.stderr.isatty():
        return None
    last = [-1]

    def show(fraction: float) -> None:
        pct = int(100 * fraction)
        if pct != last[0]:
            last[0] = pct
            sys.stderr.write(f"\r{what}: {pct:3d} %" + ("\n" if pct >= 100 else ""))
            sys.stderr.flush()

    return show


def _evaluate_budget(args: argparse.Namespace, data: D.Data, reps: list[Representation],
                     cfg: EvaluationConfig) -> int:
    import numpy as np

    from subsetsel_core.evaluation.budget import evaluate_budget
    from subsetsel_core.evaluation.permutation import p_phrase
    from subsetsel_core.ranks.metrics import METRICS
    from subsetsel_core.selection.costs import dataset_costs
    from subsetsel_core.strategies import BUDGET_STRATEGIES
    from subsetsel_core.text.rounding import text
    from subsetsel_core.text.safe_csv import csv_text

    if len(reps) != 1:
        raise InputError("budget curves use one representation; name one.", field="representation")
    costs = dataset_costs(data.benchmark, data.descriptors, data.specs, args.cost_column)
    strategies = [s for s in cfg.strategies if s in BUDGET_STRATEGIES]
    levels = [float(b) for b in np.round(np.linspace(args.budget / 15, args.budget, 15), 4)]
    res = evaluate_budget(data.benchmark, reps[0], costs.values, budgets=levels, strategies=strategies,
                          trials=cfg.trials, alpha=cfg.alpha, seed=cfg.seed, metrics=cfg.metrics, how=costs.how)
    frame = res.to_frame()
    if args.out:
        from subsetsel_core.outputs.provenance import from_arguments
        from subsetsel_core.text.rounding import round_frame

        D.write(csv_text(round_frame(frame), comments=from_arguments(args).items()), args.out)
        D.say(f"wrote {args.out}", err=True)
        return 0
    m = cfg.metrics[0]
    piv = frame[frame["metric"] == m].pivot(index="budget", columns="key", values="mean")
    lines = [f"costs {costs.how}", f"{METRICS[m].label} (mean over trials) by budget share:",
             piv.to_string(float_format=lambda v: R.text(v, "agreement"))]
    for e in res.entries:
        p = res.stats[e.key].p_vs_random.get(m)
        tail = "" if e.strategy == BASELINE or p is None else f", {p_phrase(p)} vs random"
        lines.append(f"  {e.key}: AUC {text(res.stats[e.key].auc[m].mean, 'auc')}{tail}")
    D.say("\n".join(lines))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """``subsetsel check``: Mantel test and CKA per representation, one quick protocol run over all of them and
    its permutation test (one family: every strategy on every representation)."""
    from subsetsel_core.evaluation.check import MANTEL_PERMUTATIONS
    from subsetsel_core.evaluation.permutation import check_permutations, p_phrase
    from subsetsel_core.evaluation.quick import CHECK_PERMUTATIONS, quick_checks
    from subsetsel_core.text.rounding import text

    perms = check_permutations(CHECK_PERMUTATIONS if args.permutations is None else args.permutations)
    if perms == 0:
        raise InputError("check rests on the permutation test; give --permutations 1 or more (default "
                         f"{CHECK_PERMUTATIONS}).", field="permutations")
    data, reps = _data(args)
    mantel = MANTEL_PERMUTATIONS if args.mantel_permutations is None else args.mantel_permutations
    checks = quick_checks(data.benchmark, reps, trials=args.trials, seed=args.seed, permutations=perms,
                          mantel_permutations=mantel, progress=_progress("checking"))
    pt = checks[0].permutation
    D.say(pt.describe())
    for qc in checks:
        chk = qc.check
        lines = [f"{chk.representation}: Mantel r = {text(chk.mantel_r, 'correlation')} ({p_phrase(chk.mantel_p)}), "
                 f"CKA = {text(chk.cka, 'correlation')}"]
        lines += [f"  {pt.verdict(k)}" for k in qc.keys]
        lines.append(f"  {qc.verdict}")
        D.say("\n".join(lines))
    return 0


def cmd_advise(args: argparse.Namespace) -> int:
    """``subsetsel advise``: smallest k whose 95 % band meets the target."""
    from subsetsel_core.evaluation.protocol import evaluate
    from subsetsel_core.evaluation.required_k import (
        advice_frame,
        advice_sentence,
        advise,
        within_ceiling,
    )
    from subsetsel_core.evaluation.stability import full_stability
    from subsetsel_core.ranks.metrics import METRICS

    _check_names(args)
    data, reps = _data(args)
    lo, hi = METRICS[args.metric].bounds(data.benchmark.n_models)
    if args.target is None:
        args.target = METRICS[args.metric].default_target(data.benchmark.n_models)
    if not lo <= args.target <= hi:
        raise InputError(f"the target {args.target:g} is outside the range of {METRICS[args.metric].label} "
                         f"({lo:g} to {hi:g}); give a --target in that range.")
    res = evaluate(data.benchmark, reps, _config(args), mapper=_mapper(args))
    band = full_stability(data.benchmark, seed=args.seed, metrics=(args.metric,)).bands[args.metric]
    frame = advice_frame(res, args.metric, args.target)
    D.say(advice_sentence(res, frame, args.metric, args.target))
    by_key = {a.key: a for a in advise(res, metric=args.metric, target=args.target)}
    for a in (by_key[key] for key in frame["key"]):
        k = within_ceiling(res, a.key, args.metric, (band.lo, band.hi))
        D.say(a.sentence(int(res.ks[-1])) + (f" Its mean is within the full benchmark's own stability "
                                            f"({R.text(band.lo, 'agreement')}–{R.text(band.hi, 'agreement')}) from k = {k}." if k is not None else ""))
    return 0


def _table_release_dates(data: D.Data) -> dict[str, Any]:
    """The release dates of the score table's release column, for every model (or an InputError)."""
    import pandas as pd

    from subsetsel_core.evaluation.generalisation import read_release_dates

    models = data.benchmark.models
    lacking = [m for m in models if m not in data.model_dates]
    if lacking:
        raise InputError(f"{data.benchmark.name}: {len(lacking)} of {len(models)} models have no date in the release "
                         f"column ({', '.join(lacking[:5])}{' …' if len(lacking) > 5 else ''}). Fill them in, or hold "
                         "out models with --new-models or a --model-dates table.", field="release_column")
    D.say("note: held-out models by the release dates of the score table's release column", err=True)
    frame = pd.DataFrame({"model": list(models), "release_date": [data.model_dates[m] for m in models]})
    return read_release_dates(frame, models, date_column="release_date", label=data.benchmark.name)


def cmd_generalise(args: argparse.Namespace) -> int:
    """``subsetsel generalise``: the protocol on judging vs held-out models."""
    from pathlib import Path

    from subsetsel_core.evaluation.generalisation import evaluate_generalisation, read_release_dates

    _check_names(args)
    data, reps = _data(args)
    dates = None
    if args.model_dates:
        dates = read_release_dates(readable(args.model_dates), data.benchmark.models, date_column=args.date_column,
                                   label=Path(args.model_dates).name)
    elif not args.new_models and data.model_dates:
        dates = _table_release_dates(data)
    res = evaluate_generalisation(data.benchmark, reps, _config(args), new_models=args.new_models,
                                  release_dates=dates, fraction=args.fraction, seed=args.seed)
    D.say(res.to_frame(args.metric).to_string(index=False, float_format=lambda v: R.text(v, "auc")))
    D.say(res.verdict(args.metric))
    D.say("p here: one-sided Wilcoxon vs random on these pools (conditional on the representation): whether the "
          "winner holds on new models, not whether its descriptors help; that verdict is the permutation test of "
          "'subsetsel evaluate' (on by default).")
    return 0
