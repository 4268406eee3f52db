"""Does FAFI's coverage bound V(h_k) hold on benchmarks drawn from its own GP model?

For each setting of known hyperparameters (ℓ, σ², τ²) it draws ``--draws`` benchmarks
(n datasets with latent points ~ N(0, I_q), standardized; M models from the zero-mean GP;
FAFI on the latent points), estimates every model's scores from FAFI's first k datasets
with the GP posterior (k = 2…20) and prints, per setting, how often each observed error
stays below V(h_k): over (draw, k) cells, with the known hyperparameters and with
hyperparameters fitted on each draw (as the tool fits them). Also the mean over draws of
V and of the errors at k = 2, 10 and 20. Nothing is asserted (docs/theory.md quotes the
output). See :mod:`subsetsel_core.evaluation.theory_check` for the definitions.

Usage::

    python benchmarks/theory_checks.py [--draws 200] [--n 100] [--models 30] [--latent-dim 3] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from subsetsel_core.evaluation.gp import GPFit
from subsetsel_core.evaluation.theory_check import check_bound

SETTINGS = ((1.0, 1.0, 0.1), (0.5, 1.0, 0.1), (2.0, 1.0, 0.1), (1.0, 1.0, 0.5), (2.0, 1.0, 1.0))
"""(ℓ, σ², τ²) of the draws (distances are on standardized latent points)."""
HELD = ("max_variance", "pointwise", "point_share", "mean_score", "noisy_mean", "inverted")


def main() -> None:
    """Run every setting and print one block per setting."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--draws", type=int, default=200)
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--models", type=int, default=30)
    p.add_argument("--latent-dim", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
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
