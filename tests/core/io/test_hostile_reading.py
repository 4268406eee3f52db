"""Silently wrong answers from hostile score and descriptor tables: read right, or refused by name.

Truncated gzip, ambiguous or unit-laden numbers, duplicate headers, non-UTF-8 text and
names that differ only in Unicode normalisation, through the library and the CLI.
"""

from __future__ import annotations

import gzip
import re
import unicodedata
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from subsetsel_core.benchmark import load_scores
from subsetsel_core.cli.main import main
from subsetsel_core.errors import InputError
from subsetsel_core.io.numeric_cells import parse_numbers
from subsetsel_core.io.tables import read_table
from subsetsel_core.representations.descriptors import align_descriptors, load_descriptors

NFC = unicodedata.normalize("NFC", "Café")
NFD = unicodedata.normalize("NFD", "Café")
DATASETS = [NFC, "Zürich", "Ølen", "dd", "ee", "ff"]
MODELS = ["m1", "m2", "m3", "m4"]


def long_text(sep: str = ",", datasets: list[str] | None = None, n_rows: int = 1) -> str:
    """A long score table, ``n_rows`` copies of each dataset (with a fold column then)."""
    rows = [sep.join(["dataset", "model", "fold", "score"])]
    for r in range(n_rows):
        for i, d in enumerate(datasets or DATASETS):
            for j, m in enumerate(MODELS):
                rows.append(sep.join([d, m, str(r), f"0.{(i * 3 + j * 7 + r) % 9 + 1}"]))
    return "\n".join(rows) + "\n"


def features_text(sep: str = ",", size: list[str] | None = None, datasets: list[str] | None = None) -> str:
    """A descriptor table with a numeric ``size`` column."""
    size = size or [str(100 * (i + 1)) for i in range(len(DATASETS))]
    rows = [f"dataset{sep}size{sep}classes"]
    rows += [f"{d}{sep}{s}{sep}{i % 3 + 2}" for i, (d, s) in enumerate(zip(datasets or DATASETS, size, strict=True))]
    return "\n".join(rows) + "\n"


def cli_error(capsys: pytest.CaptureFixture[str], scores: Path, features: Path | None = None) -> str:
    """Run ``select`` expecting exit code 2; its one-line message."""
    args = ["select", "--scores", str(scores), "--k", "3"]
    args += ["--features", str(features), "--strategy", "fafi-euclidean"] if features else ["--strategy", "random"]
    rc = main(args)
    err = capsys.readouterr().err
    assert rc == 2, err
    lines = [ln for ln in err.splitlines() if ln.startswith("subsetsel: error:")]
    assert len(lines) == 1 and "Traceback" not in err
    return lines[0]


def good_features(tmp_path: Path) -> Path:
    p = tmp_path / "features.csv"
    p.write_text(features_text(), encoding="utf-8")
    return p


# 1. Truncated gzip -------------------------------------------------------------------

def _big_gz() -> tuple[bytes, bytes]:
    text = long_text(n_rows=40).encode()
    return text, gzip.compress(text)


@pytest.mark.parametrize("cut", [0.3, 0.6, 0.95])
def test_gzip_cut_mid_stream_is_truncated(cut: float) -> None:
    _, gz = _big_gz()
    with pytest.raises(InputError, match=r"scores\.csv\.gz: the gzip file is truncated"):
        load_scores(gz[: int(len(gz) * cut)], label="scores.csv.gz")


def test_gzip_cut_after_a_flush_point_is_truncated() -> None:
    text, _ = _big_gz()
    c = zlib.compressobj(wbits=31)
    part = c.compress(text[: len(text) // 2]) + c.flush(zlib.Z_SYNC_FLUSH)  # whole rows decode
    assert zlib.decompressobj(wbits=31).decompress(part) == text[: len(text) // 2]
    with pytest.raises(InputError, match="truncated"):
        load_scores(part, label="scores.csv.gz")
    full = c.compress(b"") + c.flush(zlib.Z_FULL_FLUSH)
    with pytest.raises(InputError, match="truncated"):
        load_scores(part + full, label="scores.csv.gz")


def test_gzip_without_its_trailer_is_truncated() -> None:
    _, gz = _big_gz()
    with pytest.raises(InputError, match="truncated"):
        load_scores(gz[:-8], label="scores.csv.gz")


def test_whole_gzip_still_reads_including_an_exact_megabyte() -> None:
    text, gz = _big_gz()
    b = load_scores(gz, label="scores.csv.gz", fold_column="fold")
    assert b.scores.shape == (6, 40, 4)
    padded = text + b"\n" * ((1 << 20) - len(text))  # decompressed size exactly 1 MiB (one read's worth)
    assert len(padded) == 1 << 20
    assert load_scores(gzip.compress(padded), label="s.csv.gz", fold_column="fold").scores.shape == (6, 40, 4)


def test_cli_truncated_gzip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, gz = _big_gz()
    p = tmp_path / "scores.csv.gz"
    p.write_bytes(gz[: len(gz) // 2])
    msg = cli_error(capsys, p)
    assert "scores.csv.gz" in msg and "truncated" in msg


# 2. Numbers ----------------------------------------------------------------------------

def test_thousands_comma_in_semicolon_file_is_refused() -> None:
    text = re.sub(r";0\.(\d)\n", r";1,\g<1>50\n", long_text(";"))  # 1,150 … 1,950: 1150 or 1.15?
    with pytest.raises(InputError, match=r"semi\.csv: column 'score': numbers like '1,250'.*e\.g\. '1,\d50'"):
        load_scores(text.encode(), label="semi.csv")


def test_decimal_comma_still_reads() -> None:
    text = long_text(";").replace(";0.", ";0,")
    b = load_scores(text.encode(), label="semi.csv", fold_column="fold")
    assert np.isclose(b.scores.min(), 0.1) and np.isclose(b.scores.max(), 0.9)


def test_parse_numbers_conventions() -> None:
    num, bad, notes = parse_numbers(pd.Series(["1,250", "2,500", "900"]))
    assert bad[:2].all() and num[:2].isna().all()
    num, bad, _ = parse_numbers(pd.Series(["1,250.5", "2,500", "900.0"]))  # a decimal point settles it
    assert num.tolist() == [1250.5, 2500.0, 900.0] and not bad.any()
    num, bad, _ = parse_numbers(pd.Series(["1.250,5", "2.500,0"]))
    assert num.tolist() == [1250.5, 2500.0]
    num, bad, notes = parse_numbers(pd.Series(["12 MB", "3MB", "0.5 MB"]))
    assert num.tolist() == [12.0, 3.0, 0.5] and any("unit 'MB'" in n for n in notes)
    num, bad, _ = parse_numbers(pd.Series(["85%", "90 %"]))
    assert np.allclose(num, [0.85, 0.9])
    _, bad, _ = parse_numbers(pd.Series(["1st", "2nd", "3rd"]))  # not units: plain text
    assert bad.all()
    _, bad, notes = parse_numbers(pd.Series(["hello", "1,250", "3 MB", "7 s"]))  # a text column stays text
    assert bad.all() and notes == []


def test_descriptor_thousands_and_units(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"feat\.csv: column 'size'.*'1,250'"):
        load_descriptors(features_text(";", ["1,250", "2,500", "300", "4,000", "500", "600"]).encode(), labels=["feat.csv"])
    with pytest.raises(InputError, match=r"feat\.csv: column 'size': cells carry different units.*'12 MB'"):
        load_descriptors(features_text(",", ["12 MB", "3 GB", "5 kB", "1 MB", "2 MB", "3 MB"]).encode(), labels=["feat.csv"])
    with pytest.raises(InputError, match="different units"):
        load_descriptors(features_text(",", ["950", "1.2k", "3k", "4k", "5k", "6k"]).encode(), labels=["feat.csv"])
    same = load_descriptors(features_text(",", [f"{i} ms" for i in range(6)]).encode(), labels=["feat.csv"])
    assert list(parse_numbers(same["size"])[0]) == [0, 1, 2, 3, 4, 5]


def test_cli_ambiguous_numbers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scores = tmp_path / "scores.csv"
    scores.write_text(long_text(), encoding="utf-8")
    feats = tmp_path / "features.csv"
    feats.write_text(features_text(";", ["1,250", "2,500", "3,750", "4,000", "5,500", "6,000"]), encoding="utf-8")
    msg = cli_error(capsys, scores, feats)
    assert "features.csv" in msg and "'size'" in msg and "1,250" in msg


# 3. Duplicate headers -----------------------------------------------------------------

def test_duplicate_score_header() -> None:
    text = long_text().replace("fold,score", "score,score")
    with pytest.raises(InputError, match=r"s\.csv: duplicate column names 'score'"):
        load_scores(text.encode(), label="s.csv")


def test_duplicate_descriptor_header_even_after_stripping() -> None:
    text = features_text().replace("size,classes", "size, size ")
    with pytest.raises(InputError, match=r"f\.csv: duplicate column names 'size'"):
        load_descriptors(text.encode(), labels=["f.csv"])


def test_duplicate_header_in_a_dataframe_and_quoted() -> None:
    df = pd.DataFrame([[1, 2, 3]], columns=["dataset", "size", "size"])
    with pytest.raises(InputError, match="duplicate column names 'size'"):
        load_descriptors(df, labels=["frame"])
    text = features_text().replace("size,classes", '"a,b","a,b"')
    with pytest.raises(InputError, match="duplicate column names 'a,b'"):
        load_descriptors(text.encode(), labels=["f.csv"])


def test_cli_duplicate_header(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scores = tmp_path / "scores.csv"
    scores.write_text(long_text(), encoding="utf-8")
    feats = tmp_path / "features.csv"
    feats.write_text(features_text().replace("classes", "size"), encoding="utf-8")
    msg = cli_error(capsys, scores, feats)
    assert "features.csv" in msg and "duplicate column names 'size'" in msg


# 4. Encodings -------------------------------------------------------------------------

def test_utf16_with_bom_as_excel_writes_it() -> None:
    raw = long_text("\t").replace("\n", "\r\n").encode("utf-16")  # BOM + UTF-16-LE
    assert raw[:2] == b"\xff\xfe"
    b = load_scores(raw, label="excel.txt", fold_column="fold")
    assert sorted(b.datasets) == sorted(DATASETS)
    assert any(f.topic == "encoding" and "UTF-16" in f.message for f in b.report.findings)
    be = load_scores(b"\xfe\xff" + long_text().encode("utf-16-be"), label="be.csv", fold_column="fold")
    assert NFC in be.datasets

@pytest.mark.parametrize("order", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_is_read_with_a_note(order: str) -> None:
    """PowerShell's and some exporters' UTF-16 has no byte-order mark: its zero bytes say the order."""
    b = load_scores(long_text().encode(order), label="nobom.csv", fold_column="fold")
    assert NFC in b.datasets and sorted(b.datasets) == sorted(DATASETS)
    side = "little" if order.endswith("le") else "big"
    assert any(f.topic == "encoding" and f"{side}-endian" in f.message for f in b.report.findings)


def test_zero_bytes_without_the_utf16_pattern_are_binary() -> None:
    with pytest.raises(InputError, match="odd.csv: is a binary file"):
        load_scores(b"dataset,model\x00\x00\x01,score\n" * 20, label="odd.csv")
    with pytest.raises(InputError, match="cut.csv: is a binary file"):  # odd length: no UTF-16 text
        load_scores(long_text().encode("utf-16-le") + b"x", label="cut.csv")



def test_cp1252_file_is_decoded_with_a_note() -> None:
    text = long_text(datasets=[NFC, "Zürich", "Ølen", "naïve", "ee", "ff"])
    b = load_scores(text.encode("cp1252"), label="win.csv", fold_column="fold")
    assert NFC in b.datasets and "naïve" in b.datasets and not any("Ã" in d for d in b.datasets)
    assert any(f.topic == "encoding" and "cp1252" in f.message for f in b.report.findings)


def test_utf8_file_with_cp1252_lines_is_refused() -> None:
    lines = long_text().splitlines(keepends=True)
    raw = "".join(lines[:8]).encode("utf-8") + "".join(lines[8:]).encode("cp1252")
    with pytest.raises(InputError, match=r"mixed\.csv: mixes text encodings: line 2 is UTF-8 but line 9.*cp1252"):
        load_scores(raw, label="mixed.csv")
    with pytest.raises(InputError, match="mixes text encodings"):
        load_descriptors(features_text().encode("utf-8") + "Été,5,2\n".encode("cp1252"), labels=["f.csv"])


def test_cli_mixed_encoding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "scores.csv"
    p.write_bytes(long_text().encode("utf-8") + "Été,m1,0,0.5\n".encode("cp1252"))
    msg = cli_error(capsys, p)
    assert "scores.csv" in msg and "cp1252" in msg


def test_cli_utf16_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "scores.csv"
    p.write_bytes(long_text().encode("utf-16"))
    assert main(["select", "--scores", str(p), "--strategy", "random", "--k", "3", "--include", "Zürich"]) == 0
    assert "Zürich" in capsys.readouterr().out


# 5. Names that differ only in normalisation, case or spaces ----------------------------

def test_nfc_and_nfd_in_one_score_table() -> None:
    text = long_text().replace(f"{NFC},m3", f"{NFD},m3")
    both = re.escape(f"names '{NFC}' (NFC) and '{NFD}' (NFD)")
    with pytest.raises(InputError, match=rf"s\.csv: 'dataset' {both}.*Did you mean one name"):
        load_scores(text.encode(), label="s.csv")


def test_nfc_and_nfd_in_one_descriptor_table() -> None:
    text = features_text(datasets=[NFC, "Zürich", "Ølen", NFD, "ee", "ff"])
    both = re.escape(f"names '{NFC}' (NFC) and '{NFD}' (NFD)")
    with pytest.raises(InputError, match=rf"f\.csv: dataset {both}"):
        load_descriptors(text.encode(), labels=["f.csv"])


def test_spaces_merge_and_case_is_warned() -> None:
    spaced = long_text().replace("dd,", "  dd ,")
    assert "dd" in load_scores(spaced.encode(), label="s.csv", fold_column="fold").datasets
    cased = long_text() + "".join(f"DD,{m},0,0.5\n" for m in MODELS)
    b = load_scores(cased.encode(), label="s.csv", fold_column="fold")
    assert any(f.topic == "lookalike-names" and "'DD' / 'dd'" in f.message for f in b.report.findings)


def test_mismatch_across_tables_suggests_the_other_form() -> None:
    b = load_scores(long_text().encode(), label="s.csv", fold_column="fold")
    desc = load_descriptors(features_text(datasets=[NFD, "ZÜRICH", " Ølen ", "dd", "ee", "ff"]).encode(), labels=["f.csv"])
    with pytest.raises(InputError) as exc:
        align_descriptors(desc, b.datasets, label="f.csv")
    msg = str(exc.value)
    assert "another Unicode normalisation (NFC/NFD)" in msg and "'ZÜRICH'" in msg
    assert "Ølen" not in msg.split("did you mean")[0]  # spaces were stripped: it matched


def test_cli_nfd_duplicate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "scores.csv"
    p.write_text(long_text().replace(f"{NFC},m2", f"{NFD},m2"), encoding="utf-8")
    msg = cli_error(capsys, p)
    assert "scores.csv" in msg and "NFD" in msg


def test_cli_mismatch_suggests_nfc(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "scores.csv"
    p.write_text(long_text(), encoding="utf-8")
    f = tmp_path / "features.csv"
    f.write_text(features_text(datasets=[NFD, "Zürich", "Ølen", "dd", "ee", "ff"]), encoding="utf-8")
    msg = cli_error(capsys, p, f)
    assert "no row in features" in msg and f"did you mean '{NFD}'" in msg and "NFC/NFD" in msg


def test_utf16_without_bom_with_chinese_and_emoji_names() -> None:
    """U+4E00 is written 00 4E: a zero byte in the other half; an emoji's second half DE00 too."""
    text = "model,MMLU,GSM8K,ARC\n一号模型,0.5,0.6,0.7\n二号模型,0.4,0.5,0.8\n😀 bot,0.3,0.2,0.6\nm4,0.6,0.1,0.5\n"
    for order in ("utf-16-le", "utf-16-be"):
        df = read_table(text.encode(order), label="cjk.csv")
        assert list(df.iloc[:, 0]) == ["一号模型", "二号模型", "😀 bot", "m4"]


def test_a_readme_table_after_long_prose_is_found() -> None:
    prose = "".join(f"Line {i} of prose, with a comma.\n" for i in range(5000))
    df = read_table((prose + "\n| Model | A | B |\n|---|---|---|\n| m1 | 1 | 2 |\n| m2 | 3 | 4 |\n").encode(),
                    label="README.md")
    assert list(df.columns) == ["Model", "A", "B"] and [int(i) + 2 for i in df.index] == [5004, 5005]
