"""Representation builders: descriptor tables and raw data to a matrix X (n × p)."""

from subsetsel_core.representations.tabular import column_kind, encode_tabular
from subsetsel_core.representations.text import tfidf_svd

__all__ = ["column_kind", "encode_tabular", "tfidf_svd"]
