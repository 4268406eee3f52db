"""Representation builders: descriptor tables and raw data to a matrix X (n × p)."""

from .tabular import column_kind, encode_tabular
from .text import tfidf_svd

__all__ = ["column_kind", "encode_tabular", "tfidf_svd"]
