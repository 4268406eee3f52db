"""Command line: ``subsetsel report`` — run what a config file asks and write every output into one folder.

``subsetsel report --benchmark FOLDER [--config run.toml] --out DIR`` evaluates the
strategies and representations of the config (:mod:`subsetsel_core.outputs.run_config`; the
dashboard downloads its settings as that file), chooses the subset the evaluation favours
(or the config's ``[select]``), and writes into ``DIR``:

* ``report.html`` — the self-contained report (:func:`subsetsel_core.viz.report.build_html`);
* ``evaluation.json`` — every number in full precision, the critical-difference diagram's too;
* ``auc.csv``, ``curves.csv`` — rounded for people (:mod:`subsetsel_core.text.rounding`);
* ``auc.tex`` — the AUC table in LaTeX (:mod:`subsetsel_core.outputs.latex`);
* ``subset.csv``, ``subset.json`` — the subset and its sidecar (``subsetsel select --recipe`` replays either);
* ``figures/*.png``, ``figures/*.svg``, ``figures/figures.json`` — every figure (PNG and SVG
  need Chromium; without it a warning, and the rest is written);
* ``run.toml`` — the config as run (with ``[reading]``, how ``--scores`` was read).

Every file records its provenance (:mod:`subsetsel_core.outputs.provenance`). A progress bar is
drawn on standard error when it is a terminal.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from subsetsel_core.cli import data as D
from subsetsel_core.cli.args import jobs
from subsetsel_core.errors import InputError
from subsetsel_core.io.safe_write import check_folder, write_files
from subsetsel_core.text import strict_json

if TYPE_CHECKING:
    from subsetsel_core.outputs.run_config import RunConfig
    from subsetsel_core.representations.descriptors import Representation
    from subsetsel_core.representations.recipe import RepresentationRecipe

#: The steps of the progress bar and their share of the time.
STEPS = (("loading", 0.05), ("evaluating", 0.6), ("permutation test", 0.15), ("ceiling", 0.05),
         ("subset and figures", 0.05), ("images", 0.1))


def add_report_args(p: argparse.ArgumentParser) -> None:
    """The options of ``subsetsel report``."""
    D.add_data_args(p)
    p.add_argument("--config", metavar="run.toml",
                   help="what to run (TOML: [evaluate] strategies, representations, trials, alpha, beta, k_min, k_max, "
                        "metrics, permutations; [select]; [report]); default: the defaults of 'subsetsel evaluate'")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write the report and every file into")
    p.add_argument("--title", help="the report's title (default: the config's, else the benchmark's)")
    p.add_argument("--no-images", action="store_true", help="skip the PNG and SVG images (no Chromium needed)")
    p.add_argument("--jobs", type=jobs, default=1, help="worker processes on this machine (0: all cores)")


class Progress:
    """A one-line progress bar on standard error, drawn only when it is a terminal."""

    def __init__(self, stream: Any = None, width: int = 28) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.on = bool(getattr(self.stream, "isatty", lambda: False)())
        self.width = width
        self.done = 0.0
        self.step = ""
        self.started = time.monotonic()

    def show(self, step: str, within: float = 0.0) -> None:
        """Step ``step`` is ``within`` (0–1) done."""
        if not self.on:
            return
        before = 0.0
        for name, share in STEPS:
            if name == step:
                before += share * min(max(within, 0.0), 1.0)
                break
            before += share
        self.done = max(self.done, before)
        filled = int(round(self.width * self.done))
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {round(100 * self.done):3d} %  "
                          f"{step:<20} {round(time.monotonic() - self.started):5d} s")
        self.stream.flush()

    def close(self) -> None:
        """End the line."""
        if self.on:
            self.show("images", 1.0)
            self.stream.write("\n")
            self.stream.flush()


def _representations(args: argparse.Namespace, cfg: RunConfig, data: D.Data, tables: list[str] | None,
                     seed: int) -> list[tuple[RepresentationRecipe, Representation]]:
    ns = argparse.Namespace(**{**vars(args), "representation": list(tables) if tables else None, "columns": None,
                               "text": None, "log": None, "pca": None})
    return D.representations(ns, data, seed)


def cmd_report(args: argparse.Namespace) -> int:
    """``subsetsel report``: evaluate, choose the subset, and write the report with every output."""
    from subsetsel_core.evaluation.critical_difference import critical_difference
    from subsetsel_core.evaluation.permutation import check_permutations
    from subsetsel_core.evaluation.protocol import evaluate
    from subsetsel_core.evaluation.result import BASELINE, EvaluationConfig
    from subsetsel_core.evaluation.stability import full_stability
    from subsetsel_core.evaluation.verdict import favoured_entry
    from subsetsel_core.outputs.provenance import from_arguments
    from subsetsel_core.outputs.run_config import RunConfig, check_names, read_run_config
    from subsetsel_core.ranks.metrics import METRICS
    from subsetsel_core.strategies import REGISTRY, STRATEGIES

    label = Path(args.config).name if args.config else "config"
    cfg = read_run_config(args.config) if args.config else RunConfig()
    check_names(cfg, label)
    permutations = check_permutations(cfg.permutations, flag=f"{label}: permutations")
    out = Path(args.out)
    check_folder(out)  # a link planted at --out is refused before the evaluation, not after
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {args.out} is a file; give a folder (it is created when missing).")
    bar = Progress()
    bar.show("loading")
    chosen = [*cfg.representations, *([cfg.select_representation] if cfg.select_representation else [])]
    tables = [t for r in chosen for t in r.split("+")]  # [select]'s tables are loaded too
    args = argparse.Namespace(**{**vars(args), "representation": list(cfg.representations) or None,
                                 "missing": args.missing or cfg.missing or None, "reading": cfg.reading})
    data = D.load(args, list(dict.fromkeys(tables)) if tables else None)
    if args.scores and data.reading is not None:  # the config as run says how the table was read
        cfg = dataclasses.replace(cfg, reading=data.reading, missing=data.reading.missing)
    D.warn(data.benchmark.report)
    pairs = _representations(args, cfg, data, list(cfg.representations), cfg.seed)
    reps = [rep for _, rep in pairs]
    strategies = list(cfg.strategies) or [s for s in STRATEGIES if reps or not REGISTRY[s].uses_features]
    if not reps and any(REGISTRY[s].uses_features for s in strategies):
        raise D.no_descriptors("report")
    metrics = tuple(cfg.metrics) or tuple(METRICS)
    econf = EvaluationConfig(strategies=tuple(strategies), trials=cfg.trials, alpha=cfg.alpha, beta=cfg.beta,
                             k_min=cfg.k_min, k_max=cfg.k_max, seed=cfg.seed, metrics=metrics)
    mapper = None
    if args.jobs != 1:
        from subsetsel_core.evaluation.parallel import process_mapper

        mapper = process_mapper(args.jobs)
    res = evaluate(data.benchmark, reps, econf, mapper=mapper,
                   callback=lambda r: bar.show("evaluating", r.trials_done / max(1, econf.trials)))
    permutation = None
    if permutations and any(e.strategy != BASELINE for e in res.entries):
        from subsetsel_core.evaluation.permutation import permutation_test

        permutation = permutation_test(
            data.benchmark, reps, res.config, permutations=permutations,
            trials=min(cfg.permutation_trials, econf.trials) or None, observed=res,
            verdict_metric=cfg.metric if cfg.metric in metrics else metrics[0],
            jobs=None if args.jobs == 1 else args.jobs, progress=lambda f: bar.show("permutation test", f))
    bar.show("ceiling")
    stability = full_stability(data.benchmark, seed=cfg.seed, metrics=metrics)
    bar.show("subset and figures")
    metric = cfg.metric if cfg.metric in metrics else metrics[0]
    cd = critical_difference(res, metric, test=cfg.critical_difference)
    recipe, rep, strategy = _subset_choice(args, cfg, data, pairs, res, favoured_entry(res, permutation, metric))
    prov = from_arguments(args, cfg.seed)
    prov["settings"]["config"] = cfg.to_dict()
    written = write_outputs(out, data, res, permutation, stability, cd, metric, recipe, rep, strategy, cfg, prov,
                            title=args.title or cfg.title, images=cfg.images and not args.no_images, progress=bar)
    bar.close()
    if cd.note:
        D.say(f"warning: critical-difference diagram: {cd.note}", err=True)
    D.say(f"wrote {len(written)} files into {out}: " + ", ".join(written), err=True)
    return 0


def _subset_choice(args: argparse.Namespace, cfg: RunConfig, data: D.Data,
                   pairs: list[tuple[RepresentationRecipe, Representation]], res: Any,
                   favoured: str | None) -> tuple[RepresentationRecipe | None, Representation | None, str]:
    """The recipe, representation and strategy of the subset shown: the config's, else the favoured entry's."""
    from subsetsel_core.strategies import BASELINE, REGISTRY

    entry = next((e for e in res.entries if e.key == favoured), None)
    strategy = cfg.select_strategy or (entry.strategy if entry is not None else BASELINE)
    if cfg.select_representation:
        found = _representations(args, cfg, data, [cfg.select_representation], cfg.seed)
        recipe, rep = found[0] if found else (None, None)
    else:
        name = entry.representation if entry is not None else None
        match = [(r, p) for r, p in pairs if p.name == name] or pairs[:1]
        recipe, rep = match[0] if match else (None, None)
    if rep is None and REGISTRY[strategy].uses_features:
        raise D.no_descriptors("report", f"the strategy '{strategy}' of [select]")
    return recipe, rep, strategy


def subset_map(X: Any, method: str, seed: int) -> tuple[Any, str, str]:
    """The map's coordinates, the method they come from, and why that is not ``method`` ("" if it is).

    UMAP needs umap-learn (the ``app`` extra); without it, and with fewer than five datasets
    or no descriptor column, the map is PCA.
    """
    from subsetsel_core.representations.projection import compute

    if method != "PCA" and (X.shape[0] < 5 or X.shape[1] == 0):
        return compute(X, "PCA", seed), "PCA", f"{method} needs at least five datasets with descriptors"
    try:
        return compute(X, method, seed), method, ""
    except ImportError as exc:
        return compute(X, "PCA", seed), "PCA", str(exc)


def write_outputs(out: Path, data: D.Data, res: Any, permutation: Any, stability: Any, cd: Any, metric: str,
                  recipe: RepresentationRecipe | None, rep: Representation | None, strategy: str, cfg: RunConfig,
                  prov: dict[str, Any], *, title: str = "", images: bool = True,
                  progress: Progress | None = None) -> list[str]:
    """Write the report and every output file into ``out`` (created); returns the files' names."""
    from subsetsel_core.evaluation.summary import evaluation_json
    from subsetsel_core.outputs import export
    from subsetsel_core.outputs.latex import auc_latex
    from subsetsel_core.outputs.run_config import config_toml
    from subsetsel_core.representations.recipe import recipe_columns
    from subsetsel_core.selection.coverage import coverage
    from subsetsel_core.selection.subsets import select_datasets
    from subsetsel_core.text.rounding import round_frame
    from subsetsel_core.text.safe_csv import csv_text
    from subsetsel_core.viz.report import build_html

    bench = data.benchmark
    k = int(min(max(1, cfg.select_k), bench.n_datasets))
    sel = select_datasets(bench, rep, strategy, k, seed=cfg.seed)
    selection = {"benchmark": bench.name, "strategy": sel.strategy, "k": sel.k, "seed": sel.seed, "include": [],
                 "exclude": [], "datasets": list(sel.datasets),
                 "representation_recipe": None if recipe is None else recipe.to_dict()}
    prov = {**prov, "settings": {**prov["settings"], "selection": selection}}  # select --recipe replays any file
    cov = coverage(rep, list(sel.datasets)) if rep is not None else None
    descriptors = None if recipe is None else recipe_columns(recipe, bench.datasets, data.descriptors, data.specs)
    table = export.subset_table(sel, descriptors, coverage=cov)
    side = export.sidecar(sel, bench, recipe, title=data.title, coverage=cov, provenance=prov)
    where = subset_map(rep.X, cfg.map_method, cfg.seed) if rep is not None else None
    if where is not None and where[2]:
        D.say(f"note: {where[2]}; the map is PCA.", err=True)
    figures = report_figures(res, permutation, stability, cd, metric, sel, where, descriptors, data)
    report = build_report(data, res, permutation, stability, cd, metric, sel, table, figures, prov, title=title,
                          map_method=where[1] if where is not None else "", map_note=where[2] if where else "")
    files: dict[str, bytes] = {
        "report.html": build_html(report).encode("utf-8"),
        "evaluation.json": (strict_json.dumps({**evaluation_json(res, permutation, stability, provenance=prov),
                                               "critical_difference": cd.to_json_dict()}, indent=1, default=float,
                                              ensure_ascii=True) + "\n").encode("utf-8"),
        "auc.csv": csv_text(round_frame(res.to_frame()), comments=prov.items()).encode("utf-8"),
        "curves.csv": csv_text(round_frame(res.curves_frame()), comments=prov.items()).encode("utf-8"),
        "auc.tex": auc_latex(res, provenance=prov).encode("utf-8"),
        "subset.csv": export.subset_csv(table, side).encode("utf-8"),
        "subset.json": export.sidecar_json(side).encode("utf-8"),
        "run.toml": config_toml(cfg, comments={"made by": str(prov.get("command"))}).encode("utf-8"),
    }
    files.update(figure_files(figures, prov, images=images, progress=progress))
    write_files(out, files)  # created inside the folder, never through a link planted in it
    return list(files)


def report_figures(res: Any, permutation: Any, stability: Any, cd: Any, metric: str, sel: Any,
                   where: tuple[Any, str, str] | None, descriptors: Any, data: D.Data) -> dict[str, Any]:
    """The report's figures: curves with the ceiling band, AUC, the critical-difference diagram, the map, the leaderboard."""
    from subsetsel_core.evaluation.result import BASELINE
    from subsetsel_core.evaluation.verdict import favoured_entry
    from subsetsel_core.ranks.metrics import METRICS
    from subsetsel_core.viz import curves, maps, rankings, style
    from subsetsel_core.viz.critical_difference import cd_figure

    fav = favoured_entry(res, permutation, metric)
    band = stability.bands.get(metric) if stability is not None else None
    figs: dict[str, Any] = {
        "curves": curves.curves_figure(res.curves_frame(), metric, ceiling=None if band is None else (band.lo, band.hi),
                                       band_keys={BASELINE, *([fav] if fav else [])},
                                       title=f"{METRICS[metric].label} vs k — T = {res.trials_done}, seed "
                                             f"{res.config.seed}"),
        "auc": curves.auc_figure(res.to_frame(), metric, title="Normalised AUC with 95% intervals"),
        "critical_difference": cd_figure(cd, title=f"Critical difference — mean rank of the {METRICS[metric].label} "
                                                   f"AUC over {res.trials_done} trials"),
    }
    if where is not None:
        coords, method, _ = where
        figs["map"] = maps.map_figure(coords, data.benchmark.datasets, hover=descriptors, selected=sel.indices,
                                      selected_color=style.strategy_color(sel.strategy), method=method,
                                      title=f"Datasets by {sel.representation} ({method}): {sel.k} chosen by "
                                            f"{sel.strategy}")
    figs["leaderboard"] = rankings.leaderboard_figure(data.benchmark.leaderboard(), top=15,
                                                      title="Leaderboard on the full benchmark (top 15)")
    return figs


def figure_files(figures: dict[str, Any], prov: dict[str, Any], *, images: bool,
                 progress: Progress | None = None) -> dict[str, bytes]:
    """``figures/NAME.png`` and ``.svg`` with the provenance inside, and ``figures/figures.json``."""
    from subsetsel_core.outputs.provenance import PNG_KEY, png_with_text, svg_with_metadata

    meta = strict_json.dumps(prov)
    out: dict[str, bytes] = {}
    error = None
    if images:
        from subsetsel_core.viz.report import figure_images

        if progress is not None:
            progress.show("images", 0.0)
        try:
            rendered = figure_images(figures, ("png", "svg"))
        except RuntimeError as exc:
            rendered, error = {}, str(exc)
            D.say(f"warning: no PNG or SVG images: {exc} The HTML report has every figure.", err=True)
        for name, by_fmt in rendered.items():
            out[f"figures/{name}.png"] = png_with_text(by_fmt["png"], PNG_KEY, meta)
            out[f"figures/{name}.svg"] = svg_with_metadata(by_fmt["svg"], meta)
    listing = {"figures": {name: {"title": (fig.layout.title.text or ""),
                                  "files": [f for f in out if f.startswith(f"figures/{name}.")]}
                           for name, fig in figures.items()},
               "images_error": error, "provenance": prov}
    out["figures/figures.json"] = (strict_json.dumps(listing, indent=1) + "\n").encode("utf-8")
    return out


def build_report(data: D.Data, res: Any, permutation: Any, stability: Any, cd: Any, metric: str, sel: Any,
                 table: Any, figures: dict[str, Any], prov: dict[str, Any], *, title: str = "",
                 map_method: str = "", map_note: str = "") -> Any:
    """The HTML report's document (:class:`subsetsel_core.viz.report.Report`)."""
    from subsetsel_core.evaluation.permutation import NOT_TESTED_NOTE
    from subsetsel_core.evaluation.tables import auc_table
    from subsetsel_core.evaluation.verdict import (
        cd_caption,
        evaluation_verdict,
        gain_note,
        settings_label,
    )
    from subsetsel_core.ranks.metrics import METRICS
    from subsetsel_core.text.rounding import text
    from subsetsel_core.version import VERSION
    from subsetsel_core.viz.report import Report, Section

    b = data.benchmark
    verdict = evaluation_verdict(res, permutation, metric)
    r = Report(
        title=title or f"Ranking-preserving subset — {data.title}",
        subtitle=f"{data.title}: {b.n_datasets} datasets × {b.n_models} models × {b.n_folds} fold(s), "
                 f"{'higher' if b.higher_is_better else 'lower'} is better.",
        facts=[("Datasets", str(b.n_datasets)), ("Models", str(b.n_models)), ("Subset size k", str(sel.k)),
               ("Strategy", sel.strategy), (f"Subset {METRICS[metric].label}", text(sel.agreement[metric], "agreement"))],
        footer=f"subsetsel {VERSION} · {prov.get('command')} · seed {res.config.seed} · {settings_label(res)}",
        provenance=prov,
    )
    r.sections.append(Section(f"Verdict ({settings_label(res)})", verdict.text, highlight=True,
                              positive=verdict.helps))
    band = stability.bands.get(metric) if stability is not None else None
    r.sections.append(Section(
        "Rank agreement versus k",
        f"{settings_label(res)}; each trial draws ⌊α·n⌋ = {res.info.get('pool_datasets')} datasets and "
        f"{res.info.get('pool_models')} models; every strategy sees the same pools. Lines: mean; bands: 2.5–97.5 % "
        "of trials (random's and the favoured strategy's)"
        + (f"; grey: the full benchmark's own stability ({stability.describe()})" if band is not None else "") + ".",
        figure=figures["curves"]))
    r.sections.append(Section(
        "Area under the curve and significance against random", figure=figures["auc"],
        table=auc_table(res, metric, permutation),
        note=("Verdict: " + (permutation.describe() if permutation is not None else NOT_TESTED_NOTE)
              + f". {gain_note(res, permutation)}. p vs random on these pools: one-sided Wilcoxon signed-rank test "
                "on paired per-trial AUCs (Holm over the strategies); conditional on the representation, no "
                "verdict.")))
    r.sections.append(Section("Which strategies are told apart", cd.describe() + " " + cd_caption(permutation),
                              figure=figures["critical_difference"]))
    rep_txt = f" from the representation {sel.representation}" if sel.representation != "none" else ""
    agree = ", ".join(f"{METRICS[m].label} {text(sel.agreement[m], 'agreement')}" for m in METRICS if m in sel.agreement)
    r.sections.append(Section(
        f"The chosen subset (k = {sel.k}, {sel.strategy})",
        f"{sel.strategy} chose these {sel.k} datasets{rep_txt} without looking at the scores. Their model ranking "
        f"against the full benchmark's: {agree}.", figure=figures.get("map"), table=table,
        note=(f"Map: {map_method} of the standardised descriptors"
              + (f" ({map_note})" if map_note else "") + ". Numbers on the map give the selection order."
              if map_method else "")))
    board = b.leaderboard()
    if stability is not None:
        board = stability.annotate(board)
    r.sections.append(Section("Leaderboard of the full benchmark", stability.summary() if stability else "",
                              figure=figures["leaderboard"], table=board.head(15)))
    return r
