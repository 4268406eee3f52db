"""A CSV's first lines: a title above the header and a header one name short are refused with the line to fix;
a delimiter at the end of every row is read as what it is; ordinary headers pass untouched."""

from __future__ import annotations

import pandas as pd
import pytest

from subsetsel_core.errors import InputError
from subsetsel_core.io.table_shape import check_not_latex, check_shape
from subsetsel_core.io.tables import read_table

WIDE = "model,taskA,taskB,taskC\nm1,0.7,0.6,0.5\nm2,0.71,0.61,0.52\nm3,0.65,0.58,0.5\nm4,0.6,0.55,0.49\n"


def _read(text: str) -> pd.DataFrame:
    return read_table(text.encode(), label="t.csv")


def test_ordinary_headers_pass() -> None:
    for text in (WIDE,
                 ",A,B,C\nd0,1,2,3\nd1,4,5,6\nd2,7,8,9\n",  # an unnamed first column (a pandas index)
                 "model,a,b,\nm1,1,2,\nm2,3,4,\nm3,5,6,\n",  # a trailing delimiter on every line, header too
                 "dataset,model,score\nd0,A,0.5\nd0,B,0.4\n",
                 "model,a,b,c,d\nm1,1,2,,\nm2,3,4,,\nm3,5,6,,\n",  # empty columns, named
                 "model,,score\nm1,a,1\nm2,b,2\nm3,c,3\n",  # one unnamed column is no title
                 "a;b;c\n1;2;3\n4;5;6\n7;8;9\n"):
        assert check_shape(text, ";" if ";" in text else ",", "t.csv") is None
        check_not_latex(text, "t.csv")


def test_a_title_line_is_refused_naming_the_header_line() -> None:
    with pytest.raises(InputError) as err:
        _read("Table 3: Results on the benchmark (accuracy, %)\n" + WIDE)
    msg = str(err.value)
    assert "line 1 ('Table 3: Results on the benchmark (accuracy, %)') has 2 cells" in msg
    assert "below it have 4" in msg and "line 2 looks like the header" in msg and "Delete the lines" in msg


def test_a_title_without_a_delimiter_above_a_tab_separated_table() -> None:
    with pytest.raises(InputError, match=r"has 1 cell but the lines below it have 4 \(separated by tabs\)"):
        _read("Scores of our models\n" + WIDE.replace(",", "\t"))


def test_a_title_with_empty_cells_and_a_blank_line() -> None:
    with pytest.raises(InputError, match="names only 1 of its 4 columns.*line 3 looks like the header"):
        _read("Results,,,\n,,,\n" + WIDE)


def test_a_header_in_two_rows() -> None:
    with pytest.raises(InputError, match="header in two rows"):
        _read("Model,Reasoning,,,Coding,\n,GSM8K,MATH,BBH,HumanEval,MBPP\nm1,1,2,3,4,5\nm2,2,3,4,5,6\nm3,3,4,5,6,7\n")


def test_an_r_write_table_header_names_the_missing_row_name_column() -> None:
    text = '"taskA","taskB","taskC"\n"m1",0.7,0.6,0.5\n"m2",0.71,0.61,0.52\n"m3",0.65,0.58,0.5\n'
    with pytest.raises(InputError) as err:
        _read(text)
    assert "names 3 columns but the rows below it have 4 cells" in str(err.value)
    assert "R's write.table" in str(err.value)
    # with the name added, as the message says, it reads right
    df = _read('"model",' + text)
    assert list(df.columns) == ["model", "taskA", "taskB", "taskC"] and list(df["model"]) == ["m1", "m2", "m3"]


def test_a_delimiter_at_the_end_of_every_row_is_not_a_shift() -> None:
    df = _read(WIDE.replace("\n", ",\n").replace(",\n", "\n", 1))
    assert list(df.columns) == ["model", "taskA", "taskB", "taskC"]
    assert list(df["model"]) == ["m1", "m2", "m3", "m4"] and list(df["taskC"]) == ["0.5", "0.52", "0.5", "0.49"]


def test_ragged_lines_are_left_to_the_parser() -> None:
    with pytest.raises(InputError, match="line 4 has 5 cells"):
        _read("model,a,b\nm1,1,2\nm2,3,4\nm3,5,6,7,8\n")


@pytest.mark.parametrize("text", [
    "\\begin{tabular}{lcc}\n\\toprule\nModel & a & b \\\\\n\\midrule\nm1 & 1 & 2 \\\\\n\\end{tabular}\n",
    "% from the paper\nModel & a & b \\\\ \\hline\nm1 & 1 & 2 \\\\\nm2 & 3 & 4 \\\\\n",
])
def test_a_latex_table_is_named_as_one(text: str) -> None:
    with pytest.raises(InputError, match="is a LaTeX table"):
        _read(text)


def test_an_ampersand_in_names_is_no_latex() -> None:
    df = _read("model,R&D,Q&A\nm1,1,2\nm2,3,4\n")
    assert list(df.columns) == ["model", "R&D", "Q&A"]


def test_a_value_after_the_last_delimiter_further_down_is_refused_not_lost() -> None:
    lines = WIDE.replace("\n", ",\n").replace(",\n", "\n", 1).splitlines()
    lines += [f"x{i},0.1,0.2,0.3," for i in range(60)] + ["late,0.1,0.2,0.3,0.9"]
    with pytest.raises(InputError, match=r"line 66 has a value \('0.9'\) after the last of the 4 columns"):
        _read("\n".join(lines) + "\n")


BOARD = "model,MMLU,ARC,GSM8K\nllama,45.1,50.2,12.3\nmistral,60.1,59.9,40.2\nqwen,58.0,55.5,51.2\nphi,56.0,61.0,55.0\n"


@pytest.mark.parametrize(("top", "needle"), [
    ("Results: a, b, c, d, e, f, g, h\n", r"line 1 \('Results: a, b, c, d, e, f, g, h'\) has 8 cells but line 2"),
    ("Leaderboard,v2,2024,final\n", r"lines 1 \('Leaderboard,v2,2024,final'\) and 2 both read as rows of column"),
    (",Knowledge,Knowledge,Math\n", "a header in two rows"),
])
def test_a_title_or_a_group_row_with_as_many_cells_is_refused(top: str, needle: str) -> None:
    with pytest.raises(InputError, match=needle):
        _read(top + BOARD)


def test_a_first_row_of_gaps_is_no_second_header() -> None:
    df = _read(BOARD.replace("llama,45.1,50.2,12.3", "llama,-,-,-"))
    assert list(df.columns) == ["model", "MMLU", "ARC", "GSM8K"]


def test_a_stray_value_in_an_unnamed_last_column_is_refused() -> None:
    lines = [line + "," for line in BOARD.splitlines()]
    lines[3] += "99"
    with pytest.raises(InputError, match=r"line 4 has a value \('99'\) in a last column the header does not name"):
        _read("\n".join(lines) + "\n")


def test_a_line_separator_inside_a_markdown_name_is_part_of_the_name() -> None:
    df = _read("| model | a | b |\n|---|---|---|\n| llama\u20287b | 1 | 2 |\n| qwen | 3 | 4 |\n")
    assert list(df["model"]) == ["llama\u20287b", "qwen"]


def test_a_markdown_delimiter_line_of_the_wrong_width_is_named() -> None:
    with pytest.raises(InputError, match=r"line 3, the delimiter line of a markdown table, has 2 cells but its header"):
        _read("Intro text\n| model | a | b | c |\n|---|---|\n| x | 1 | 2 | 3 |\n")


def test_two_links_with_one_text_are_refused_by_name() -> None:
    from subsetsel_core.benchmark import load_scores
    from subsetsel_core.io.score_format import ScoreFormat

    raw = ('model,a,b,c\n<a href="https://hf.co/org/x">org/x</a>,1,2,3\n<a href="https://hf.co/org/y">org/x</a>,2,3,4\n'
           'plain,3,4,5\n')
    with pytest.raises(InputError, match="two 'model' names are both 'org/x' once their links are read as text"):
        load_scores(raw.encode(), ScoreFormat(layout="models-as-rows", dataset_column="dataset", model_column="model"),
                    label="t.csv")


@pytest.mark.parametrize(("above", "first"), [("", 2), ("sep=;\n", 3), ('"sep=;"\n', 3)])
def test_messages_name_the_files_lines_after_an_excel_sep_line(above: str, first: int) -> None:
    """Excel's ``sep=`` line is not given to the parser, yet every line named is the file's own."""
    from subsetsel_core.benchmark import load_scores

    body = "model;a;b;c\nm1;0,5;0,7;0,1\nm2;0,6;0,8;0,3;9\nm3;0,4;0,9;0,2\n"
    with pytest.raises(InputError, match=f"line {first + 1} has 5 cells"):
        read_table((above + body).encode(), label="t.csv")
    trailing = "model;a;b;c;\nm1;1;2;3;\nm2;4;5;6;x\nm3;7;8;9;\n"
    with pytest.raises(InputError, match=f"line {first + 1} has a value \\('x'\\)"):
        read_table((above + trailing).encode(), label="t.csv")
    bad = "model;a;b;c\nm1;1;2;3\nm2;4;x;6\nm3;7;8;9\n"
    with pytest.raises(InputError, match=f"not numbers in rows {first + 1} "):
        load_scores((above + bad).encode(), label="t.csv", layout="models-as-rows", higher_is_better=True)


def test_a_readme_tables_rows_are_named_by_their_lines() -> None:
    from subsetsel_core.benchmark import load_scores

    text = "# Results\n\nProse above.\n\n| Model | A | B | C |\n|---|---|---|---|\n| m1 | 1 | 2 | 3 |\n| m2 | 4 | x | 6 |\n"
    with pytest.raises(InputError, match="not numbers in rows 8 "):
        load_scores((text + "| m3 | 7 | 8 | 9 |\n").encode(), label="r.md", layout="models-as-rows",
                    higher_is_better=True)
    df = read_table(text.encode(), label="r.md")
    assert [int(i) + 2 for i in df.index] == [7, 8]


def test_tables_in_code_blocks_and_comments_are_not_read() -> None:
    """GitHub renders no table inside a fenced code block or an HTML comment: an example there is no second table,
    and a README whose only table is one says it holds none."""
    example = "```\n| Model | A | B |\n|---|---|---|\n| x | 1 | 2 |\n```\n<!--\n| a | b |\n|---|---|\n-->\n"
    real = "| Model | A | B |\n|---|---|---|\n| m1 | 1 | 2 |\n| m2 | 3 | 4 |\n"
    df = read_table((example + "\n" + real).encode(), label="README.md")
    assert list(df.iloc[:, 0]) == ["m1", "m2"]
    with pytest.raises(InputError, match="README.md: holds no markdown table.*inside a code block"):
        read_table(example.encode(), label="README.md")


def test_a_score_column_of_counts_out_of_a_total_is_set_aside_aloud() -> None:
    from subsetsel_core.io.guess.table import guess_table

    text = "model,Solved,MMLU,GSM8K\n" + "".join(f"m{i},{i + 1}/20,0.{i + 3},0.{8 - i}\n" for i in range(6))
    g = guess_table(read_table(text.encode(), label="ctf.csv", object_text=True), label="ctf.csv")
    assert "Solved" in {s.column for s in g.set_aside}
    assert any(u.startswith("set_aside: 'Solved' was set aside as text") and "count out of a total" in u
               for u in g.unsure)
