"""Does the GP theory hold on benchmarks drawn from its own model? The prediction's calibration, then the bound.

``--calibration`` (the default part): benchmarks drawn from a GP with known (ℓ, σ², τ²) on the
samples' real descriptor geometry (TSC ucr_info, MMLU description, the synthetic oracle),
every model with its own strength; the tool standardizes, fits and predicts every strategy's
inverted share on the protocol's pools (:func:`subsetsel_core.evaluation.theory_check.calibrate`);
printed per setting: the share of (strategy, k) cells whose mean observed share lies within the
mean prediction ± 2 s.e., the mean observed − predicted gap per strategy, and the fit's median
hyperparameters; ``--figure PATH`` writes its chart. ``--samples`` prints each sample
representation's predicted and observed curves (default settings; ``--samples-figure PATH``
draws them) and the timings of the fit and of the preview's prediction (both steps of
:func:`subsetsel_core.evaluation.prediction.staged`). ``--bound``: the coverage bound's check below.

The bound:
For each setting of known hyperparameters (ℓ, σ², τ²) it draws ``--draws`` benchmarks
(n datasets with latent points ~ N(0, I_q), standardized; M models from the zero-mean GP;
FAFI on the latent points), estimates every model's scores from FAFI's first k datasets
with the GP posterior (k = 2…20) and prints, per setting, how often each observed error
stays below V(h_k): over (draw, k) cells, with the known hyperparameters and with
hyperparameters fitted on each draw (as the tool fits them). Also the mean over draws of
V and of the errors at k = 2, 10 and 20. Nothing is asserted (docs/theory.md quotes the
output). See :mod:`subsetsel_core.evaluation.theory_check` for the definitions.

Usage::

    python benchmarks/theory_checks.py [--calibration] [--samples] [--bound] [--draws 200] [--n 100] [--models 30]
        [--latent-dim 3] [--seed 0] [--cal-draws 30] [--figure docs/figures/theory_calibration.svg]
        [--samples-figure docs/figures/theory_samples.svg]
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import numpy as np

from subsetsel_core.evaluation.gp import GPFit
from subsetsel_core.evaluation.theory_check import check_bound

SETTINGS = ((1.0, 1.0, 0.1), (0.5, 1.0, 0.1), (2.0, 1.0, 0.1), (1.0, 1.0, 0.5), (2.0, 1.0, 1.0))
"""(ℓ, σ², τ²) of the draws (distances are on standardized latent points)."""
HELD = ("max_variance", "pointwise", "point_share", "mean_score", "noisy_mean", "inverted")


CAL_SAMPLES = (("tsc_bakeoff", "ucr_info"), ("mmlu", "description"), ("synthetic", "oracle"))
"""The real geometries of the calibration."""
CAL_LENGTHS = (("2 × nn", 2.0, "nn"), ("0.3 × median", 0.3, "median"), ("1 × median", 1.0, "median"))
"""(label, factor, distance it multiplies) of the draws' ℓ."""
CAL_VARIANCES = ((1.0, 0.1), (1.0, 1.0), (0.25, 0.1))
"""(σ², τ²) of the draws (the models' strengths have sd 0.5): every ℓ with every pair, fixed before
the pooled share was measured."""


def pooled(draws: int, seed: int) -> None:
    """A diagnostic, not the tool: the calibration when the GP is fitted on scores centred per dataset and
    divided by one scale for the whole benchmark instead of each dataset's spread."""
    from subsetsel_core.evaluation.gp import nn_distance, squared_distances
    from subsetsel_core.evaluation.theory_check import calibrate

    parts = []
    for sample, name in CAL_SAMPLES:
        Z = _geometry(sample, name)
        D2 = squared_distances(Z)
        ref = {"nn": nn_distance(D2), "median": float(np.median(np.sqrt(D2[np.triu_indices(len(D2), 1)])))}
        for (label, factor, dist), (s2, t2) in itertools.product(CAL_LENGTHS, CAL_VARIANCES):
            c = calibrate(Z, GPFit(factor * ref[dist], s2, t2, 0.0), draws=draws, seed=seed, estimator="scores",
                          pooled_fit=True)
            parts.append(c.inside().ravel())
            print(f"{sample} {name}, ℓ = {label}, σ² = {s2:g}, τ² = {t2:g}: {c.share_inside():.2f} inside with the "
                  "pooled-scale fit", flush=True)
    allc = np.concatenate(parts)
    print(f"all settings, pooled-scale fit: {allc.mean():.3f} of {allc.size} cells inside ± 2 s.e.; settings reaching "
          f"0.9: {sum(float(p.mean()) >= 0.9 for p in parts)} of {len(parts)}")


def _geometry(sample: str, name: str) -> np.ndarray:
    from subsetsel_core.evaluation.theory_inputs import geometry
    from subsetsel_core.loading.folder import load_benchmark_folder

    lb = load_benchmark_folder(Path(__file__).resolve().parents[1] / "sample_data" / sample)
    return geometry(lb.benchmark, lb.representation(name))


def calibration(draws: int, seed: int, figure: str | None) -> None:
    """Print the calibration table over every setting (and write its figure)."""
    from subsetsel_core.evaluation.gp import nn_distance, squared_distances
    from subsetsel_core.evaluation.theory_check import calibrate

    print(f"calibration: {draws} draws per setting, 20 models, strengths sd 0.5, 4 pools per draw, k = 2…15; "
          "observed on the subset means of the standardized scores (scores) and on the protocol's mean ranks "
          "(ranks); 'known': the prediction with the true hyperparameters (rescaled), observed on scores")
    print("| geometry | ℓ | σ² | τ² | inside: scores / ranks / known | observed − predicted on scores (pp): "
          "random / fafi-euclidean / d-optimal | fitted ℓ, σ², τ² (median) | ℓ fitted before standardizing | s |")
    print("|---|---|---|---|---|---|---|---|---|")
    cells: dict[str, list[np.ndarray]] = {"scores": [], "ranks": [], "known": []}
    points = []
    for sample, name in CAL_SAMPLES:
        Z = _geometry(sample, name)
        D2 = squared_distances(Z)
        ref = {"nn": nn_distance(D2), "median": float(np.median(np.sqrt(D2[np.triu_indices(len(D2), 1)])))}
        for (label, factor, dist), (s2, t2) in itertools.product(CAL_LENGTHS, CAL_VARIANCES):
            t0 = time.time()
            truth = GPFit(factor * ref[dist], s2, t2, 0.0)
            c = calibrate(Z, truth, draws=draws, seed=seed, estimator="scores", raw_fit=True)
            r = calibrate(Z, truth, draws=draws, seed=seed, estimator="ranks")
            k = calibrate(Z, truth, draws=draws, seed=seed, estimator="scores", known=True)
            for key, cal in (("scores", c), ("ranks", r), ("known", k)):
                cells[key].append(cal.inside().ravel())
            gap = 100 * (c.observed - c.predicted).mean(axis=(0, 2))
            med = np.median([[f.lengthscale, f.signal_variance, f.noise_variance] for f in c.fits], axis=0)
            raw = float(np.median([f.lengthscale for f in c.raw_fits]))
            print(f"| {sample} {name} | {label} = {factor * ref[dist]:.3g} | {s2:g} | {t2:g} | "
                  f"{c.share_inside():.2f} / {r.share_inside():.2f} / {k.share_inside():.2f} | "
                  + " / ".join(f"{g:+.2f}" for g in gap) + f" | {med[0]:.3g}, {med[1]:.3g}, {med[2]:.3g} | "
                  f"{raw:.3g} | {time.time() - t0:.0f} |", flush=True)
            points.append((f"{sample} {name}, ℓ = {label}, σ² = {s2:g}, τ² = {t2:g}", c, k))
    for key, parts in cells.items():
        allc = np.concatenate(parts)
        print(f"all settings, {key}: {allc.mean():.3f} of {allc.size} (strategy, k) cells inside ± 2 s.e.; "
              f"settings reaching 0.9: {sum(float(p.mean()) >= 0.9 for p in parts)} of {len(parts)}")
    if figure:
        from theory_figures import calibration_figure

        calibration_figure(points, figure)
        print(f"wrote {figure}")


def samples(trials: int, figure: str | None = None) -> None:
    """Each sample representation: fit and prediction timings, verdict, predicted / observed at k = 2, 5, 10, 20."""
    from subsetsel_core.evaluation import gp
    from subsetsel_core.evaluation import prediction as P
    from subsetsel_core.evaluation.prediction_text import gain_verdict
    from subsetsel_core.evaluation.result import EvaluationConfig
    from subsetsel_core.evaluation.theory_inputs import geometry, standardized_scores
    from subsetsel_core.loading.folder import load_benchmark_folder
    from subsetsel_core.representations.descriptors import representation_from_matrix

    root = Path(__file__).resolve().parents[1] / "sample_data"
    panels = []
    for sample in ("synthetic", "tsc_bakeoff", "mmlu"):
        lb = load_benchmark_folder(root / sample)
        b = lb.benchmark
        noise = np.random.default_rng(0).standard_normal((b.n_datasets, 16))  # descriptors that carry nothing
        for name in (*lb.descriptors, "noise"):
            rep = (representation_from_matrix(noise, b.datasets, name="noise") if name == "noise"
                   else lb.representation(name))
            Z, Y = geometry(lb.benchmark, rep), standardized_scores(lb.benchmark)
            fits = []
            for _ in range(3):
                gp._CACHE.clear()
                t0, c0 = time.perf_counter(), time.process_time()
                gp.fit_gp(Z, Y)
                fits.append((time.perf_counter() - t0, time.process_time() - c0))
            P.predict(lb.benchmark, rep, EvaluationConfig(), trials=1)  # compiled kernels loaded
            P._CACHE.clear()
            t0, c0 = time.perf_counter(), time.process_time()
            steps = []
            for fast in P.staged(lb.benchmark, rep, EvaluationConfig(), trials=P.PREVIEW_TRIALS):
                steps.append((time.perf_counter() - t0, time.process_time() - c0, len(fast.strategies)))
            preview = steps[-1][:2]
            pred = P.predict(lb.benchmark, rep, EvaluationConfig(), trials=trials)
            v = gain_verdict(pred)
            best = min(fits)
            print(f"\n{sample} {name}: fit {1000 * best[0]:.0f} ms wall / {1000 * best[1]:.0f} ms CPU (best of 3); "
                  f"prediction of {len(fast.strategies)} strategies over {fast.trials} pools {preview[0]:.2f} s wall / "
                  f"{preview[1]:.2f} s CPU (first step, {steps[0][2]} strategies: {steps[0][0]:.2f} s wall / "
                  f"{steps[0][1]:.2f} s CPU); ℓ = {pred.fit.lengthscale:.3g}, σ² = {pred.fit.signal_variance:.3g}, "
                  f"τ² = {pred.fit.noise_variance:.3g}, nn = {pred.nn_distance:.3g}; predicts_gain = "
                  f"{v.predicts_gain} ({v.reason})")
            show = [i for i, k in enumerate(pred.ks) if k in (2, 5, 10, 20)]
            print("| strategy | " + " | ".join(f"k = {int(pred.ks[i])}" for i in show) + " | corr(pred, obs) |")
            print("|---" * (len(show) + 2) + "|")
            for s in pred.strategies:
                cur, obs = pred.curve(s), pred.observed_curve(s)
                assert obs is not None
                r = float(np.corrcoef(cur, obs)[0, 1]) if np.ptp(cur) > 0 and np.ptp(obs) > 0 else float("nan")
                print(f"| {s} | " + " | ".join(f"{100 * cur[i]:.1f} / {100 * obs[i]:.1f}" for i in show)
                      + f" | {r:.2f} |")
            panels.append((f"{sample}, {name}", pred))
    if figure:
        from theory_figures import samples_figure

        samples_figure(panels, figure)
        print(f"wrote {figure}")


def main() -> None:
    """Run the parts asked for (calibration and samples by default)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calibration", action="store_true")
    p.add_argument("--samples", action="store_true")
    p.add_argument("--bound", action="store_true")
    p.add_argument("--pooled-fit", action="store_true", help="the calibration with a fit on one scale per benchmark "
                   "(a diagnostic)")
    p.add_argument("--cal-draws", type=int, default=30)
    p.add_argument("--trials", type=int, default=200, help="pools of the samples' curves")
    p.add_argument("--figure", default=None, help="write the calibration chart here (SVG or PNG)")
    p.add_argument("--samples-figure", default=None, help="write the samples' predicted and observed curves here")
    p.add_argument("--draws", type=int, default=200)
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--models", type=int, default=30)
    p.add_argument("--latent-dim", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    if args.pooled_fit:
        pooled(args.cal_draws, args.seed)
    if not (args.calibration or args.samples or args.bound or args.pooled_fit):
        args.calibration = args.samples = True
    if args.calibration:
        calibration(args.cal_draws, args.seed, args.figure)
    if args.samples:
        samples(args.trials, args.samples_figure)
    if args.bound:
        bound(args)


def bound(args: argparse.Namespace) -> None:
    """The coverage bound's check: one block per setting."""
    ks = np.arange(2, 21)
    show = [int(np.flatnonzero(ks == k)[0]) for k in (2, 10, 20)]
    print(f"{args.draws} draws of n = {args.n} datasets (latent dimension {args.latent_dim}), M = {args.models} "
          f"models, k = {ks[0]}…{ks[-1]}; share of (draw, k) cells where the observed value ≤ V(h_k) "
          "(inverted: ≤ the predicted share; point_share: mean share of datasets)")
    print("| ℓ | σ² | τ² | hyperparameters | " + " | ".join(HELD) + " |")
    print("|---" * (4 + len(HELD)) + "|")
    details = []
    for ell, s2, t2 in SETTINGS:
        truth = GPFit(ell, s2, t2, 0.0)
        for refit in (False, True):
            t0 = time.time()
            c = check_bound(truth, n=args.n, latent_dim=args.latent_dim, n_models=args.models, ks=ks,
                            draws=args.draws, refit=refit, seed=args.seed)
            how = "fitted" if refit else "known"
            print(f"| {ell:g} | {s2:g} | {t2:g} | {how} | " + " | ".join(f"{c.held(h):.3f}" for h in HELD) + " |")
            mean = {name: v.mean(axis=0)[show] for name, v in c.values.items()}
            line = (f"ℓ={ell:g} σ²={s2:g} τ²={t2:g} {how} ({time.time() - t0:.0f} s): at k = 2/10/20 "
                    + "; ".join(f"{name} " + "/".join(f"{x:.3g}" for x in mean[name])
                                for name in ("bound", "pointwise", "mean_score", "inverted", "predicted")))
            if refit:
                med = np.median([[f.lengthscale, f.signal_variance, f.noise_variance] for f in c.fits], axis=0)
                line += f"; median fit ℓ={med[0]:.3g} σ²={med[1]:.3g} τ²={med[2]:.3g}"
            details.append(line)
    print()
    print("\n".join(details))


if __name__ == "__main__":
    main()
