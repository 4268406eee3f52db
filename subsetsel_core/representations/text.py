"""Text descriptors: TF-IDF + truncated SVD (scikit-learn), the default text embedding."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def tfidf_svd(texts: Sequence[str], n_components: int = 16, *, seed: int = 0, analyzer: str = "word",
              ngram_range: tuple[int, int] = (1, 2)) -> np.ndarray:
    """Embed short texts with TF-IDF (words and 1–2-grams) reduced by truncated SVD.

    Parameters
    ----------
    texts : sequence of str, length n
        One text per dataset (empty strings allowed).
    n_components : int
        Target dimension; capped at ``min(n − 1, vocabulary − 1)``.
    seed : int
        Seed of the randomized SVD.
    analyzer : {"word", "char", "char_wb"}
        What the TF-IDF counts (scikit-learn's ``TfidfVectorizer(analyzer=…)``); ``"char_wb"``:
        character n-grams inside word boundaries (used for dataset names).
    ngram_range : (int, int)
        Smallest and largest n-gram (words or characters, as ``analyzer`` says).

    Returns
    -------
    ndarray of shape (n, d)
        ``d ≤ n_components``; rows are L2-normalised. With no usable words the result
        has zero columns.
    """
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.preprocessing import normalize

    docs = ["" if t is None else str(t) for t in texts]
    try:
        tf = TfidfVectorizer(analyzer=analyzer, ngram_range=ngram_range, sublinear_tf=True,
                             min_df=1).fit_transform(docs)
    except ValueError:  # empty vocabulary
        return np.zeros((len(docs), 0))
    d = min(n_components, tf.shape[0] - 1, tf.shape[1] - 1)
    if d < 1:
        return np.asarray(tf.todense(), dtype=float)
    z = TruncatedSVD(n_components=d, random_state=seed).fit_transform(tf)
    return normalize(z)
