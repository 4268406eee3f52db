"""The house rules of docs/architecture.md, checked on the source tree.

* Layers point one way: ``pages`` → ``subsetsel_app`` → ``subsetsel_core``; the core never
  imports streamlit, and only ``subsetsel_core.viz`` imports plotly.
* Inside the core, the top-level entries form the layers of :data:`CORE_LAYERS` (at most
  :data:`MAX_TOP_LEVEL` of them): a module imports only from its own entry or a lower one.
* The tests mirror the package: ``tests/core/<entry>/`` exists only for a core package.
* No import cycles between the project's modules, counting imports inside functions.
* No ``_private`` name imported from another module, and no private API of a dependency.
* No module over 400 lines.
* Importing the core loads neither streamlit nor plotly.
* Comments and docstrings say what is true now: no "issue N", no "first version".
* Tests do not import the benchmark scripts.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("subsetsel_core", "subsetsel_app", "pages")
MAX_LINES = 400
#: Modules still over MAX_LINES (path → lines today). This list may only shrink.
TOO_LONG: dict[str, int] = {}


#: The core's top-level entries, lowest first: each may import only from itself and entries before
#: it (``subsetsel_core/__init__.py``, the public API, sits above them all).
CORE_LAYERS: tuple[str, ...] = (
    "text", "errors", "_extras", "version", "synthetic", "ranks", "strategies", "settings", "io",
    "benchmark", "representations", "loading", "selection", "evaluation", "outputs", "workspace",
    "viz", "cli", "__main__",
)
MAX_TOP_LEVEL = 20


def _sources() -> list[Path]:
    files = [ROOT / "app.py", ROOT / "serve.py"]
    for pkg in PACKAGES:
        files += sorted((ROOT / pkg).rglob("*.py"))
    return files


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in _sources()}


def _imports(path: Path) -> Iterator[tuple[str, list[str], int]]:
    """Every import in a file (module level or not): (module, imported names, line)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield module, [a.name for a in node.names], node.lineno


def _project_targets(module: str, names: list[str]) -> list[str]:
    """The project modules an import statement loads by name."""
    out = []
    for name in names:
        if f"{module}.{name}" in MODULES:
            out.append(f"{module}.{name}")
    if module in MODULES and (not names or len(out) < len(names)):
        out.append(module)
    return out


def test_layers_point_one_way() -> None:
    bad = []
    for mod, path in MODULES.items():
        layer = mod.split(".")[0]
        for imported, _, line in _imports(path):
            top = imported.split(".")[0]
            if layer == "subsetsel_core" and top in ("subsetsel_app", "pages", "streamlit"):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {imported}")
            if layer == "subsetsel_core" and top == "plotly" and not mod.startswith("subsetsel_core.viz"):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports plotly outside subsetsel_core.viz")
            if layer == "subsetsel_app" and top == "pages":
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {imported}")
    assert not bad, "\n".join(bad)


def _core_entry(module: str) -> str | None:
    """The top-level entry of a core module (``subsetsel_core.io.tables`` → ``io``), None outside."""
    parts = module.split(".")
    if parts[0] != "subsetsel_core":
        return None
    return parts[1] if len(parts) > 1 else ""


def test_core_top_level_is_small_and_layered() -> None:
    core = ROOT / "subsetsel_core"
    entries = sorted(p.stem if p.is_file() else p.name for p in core.iterdir()
                     if (p.is_file() and p.suffix == ".py") or (p.is_dir() and (p / "__init__.py").exists()))
    assert len(entries) <= MAX_TOP_LEVEL, f"{len(entries)} top-level entries in subsetsel_core: {entries}"
    assert set(entries) - {"__init__"} == set(CORE_LAYERS), (
        "CORE_LAYERS must list every top-level entry of subsetsel_core exactly once: "
        f"missing {sorted(set(entries) - {'__init__'} - set(CORE_LAYERS))}, "
        f"gone {sorted(set(CORE_LAYERS) - set(entries))}")
    rank = {name: i for i, name in enumerate(CORE_LAYERS)}
    bad = []
    for mod, path in MODULES.items():
        here = _core_entry(mod)
        if here is None or here == "":
            continue
        for imported, names, line in _imports(path):
            for target in _project_targets(imported, names) or [imported]:
                there = _core_entry(target)
                if there in (None, "", here):
                    continue
                if rank[there] > rank[here]:
                    bad.append(f"{path.relative_to(ROOT)}:{line} ({here}) imports {target} ({there}, a higher layer)")
    assert not bad, "\n".join(bad)


def test_tests_mirror_the_package() -> None:
    tests = ROOT / "tests" / "core"
    bad = [str(d.relative_to(ROOT)) for d in sorted(tests.rglob("*")) if d.is_dir() and d.name != "__pycache__"
           and not (ROOT / "subsetsel_core" / d.relative_to(tests) / "__init__.py").exists()]
    assert not bad, f"test folders with no core package of that name: {bad}"
    loose = sorted(p.name for p in (ROOT / "tests").glob("test_*.py") if p.name != "test_structure.py")
    assert not loose, f"tests outside a layer's folder: {loose}"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles() -> None:
    graph: dict[str, set[str]] = {}
    for mod, path in MODULES.items():
        deps = graph.setdefault(mod, set())
        for imported, names, _ in _imports(path):
            deps.update(t for t in _project_targets(imported, names) if t != mod)
    # a package's __init__ that imports its own submodules to build a registry is not a cycle
    # unless a submodule imports the package back
    assert not _cycles(graph), _cycles(graph)


def test_no_private_names_across_modules() -> None:
    bad = []
    for mod, path in MODULES.items():
        for imported, names, line in _imports(path):
            if imported.split(".")[0] in PACKAGES and imported != mod:
                bad += [f"{path.relative_to(ROOT)}:{line} imports {n} from {imported}"
                        for n in names if n.startswith("_") and not n.startswith("__")]
            parts = imported.split(".")
            if parts[0] not in PACKAGES and any(p.startswith("_") for p in parts[1:]):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports private module {imported}")
            if imported.startswith("streamlit.runtime"):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {imported} (Streamlit's internals)")
    assert not bad, "\n".join(bad)



def test_no_private_api_of_dependencies() -> None:
    bad = []
    for path in MODULES.values():
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            for m in re.finditer(r"_validate\s*=|ISeedSequence|_sparsetools|PagesManager", code):
                bad.append(f"{path.relative_to(ROOT)}:{i}: {m.group(0)}")
    assert not bad, "\n".join(bad)


def test_module_sizes() -> None:
    over = {}
    for path in MODULES.values():
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES:
            over[str(path.relative_to(ROOT))] = n
    unexpected = {p: n for p, n in over.items() if p not in TOO_LONG or n > TOO_LONG[p]}
    assert not unexpected, f"modules over {MAX_LINES} lines: {unexpected}"
    fixed = sorted(set(TOO_LONG) - set(over))
    assert not fixed, f"remove from TOO_LONG (now short enough): {fixed}"


def test_core_import_loads_no_dashboard_stack() -> None:
    code = ("import sys, subsetsel_core, subsetsel_core.cli.main; "
            "print(sorted(m for m in ('streamlit', 'plotly') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


HISTORY = re.compile(r"\bissue #?\d+|\b(first|earlier|previous|old) version\b", re.I)


def test_comments_tell_no_history() -> None:
    bad = []
    for path in MODULES.values():
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if HISTORY.search(line):
                bad.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("path", sorted((ROOT / "tests").rglob("*.py")),
                         ids=lambda p: str(p.relative_to(ROOT / "tests")))
def test_tests_do_not_import_benchmarks(path: Path) -> None:
    for imported, _, line in _imports(path):
        assert not imported.startswith("benchmarks"), f"{path}:{line} imports {imported}"


# --- registry names, library internals ------------------------------------------------------------

#: Modules that define a registry: the only places a registry name may be written as a string.
REGISTRY_MODULES = ("subsetsel_core/strategies/", "subsetsel_core/ranks/metrics.py")
#: Files read for the registry-name and patching rules: the packages, the tests and the benchmarks.
CHECKED_DIRS = (*PACKAGES, "tests", "benchmarks")


def _checked_files() -> list[Path]:
    files = [ROOT / "app.py", ROOT / "serve.py"]
    for d in CHECKED_DIRS:
        files += sorted((ROOT / d).rglob("*.py"))
    return [f for f in files if not str(f.relative_to(ROOT)).startswith(REGISTRY_MODULES)]


def _registry_names() -> set[str]:
    from subsetsel_core.ranks.metrics import METRICS
    from subsetsel_core.strategies import REGISTRY

    return set(REGISTRY) | set(METRICS)


def _registry_prefixes(names: set[str]) -> set[str]:
    """Family prefixes of the names (``fafi-`` of ``fafi-cosine``)."""
    return {n[: n.index("-") + 1] for n in names if "-" in n}


def _str(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def name_comparisons(tree: ast.AST, names: set[str]) -> Iterator[tuple[int, str]]:
    """Registry names compared as string literals: ``x == "random"``, ``m in ("mae", …)``,
    ``s.startswith("fafi-")``."""
    prefixes = _registry_prefixes(names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for op, right in zip(node.ops, node.comparators, strict=True):
                left = node.left
                sides = [left, right]
                if isinstance(op, ast.In | ast.NotIn) and isinstance(right, ast.Tuple | ast.List | ast.Set):
                    sides += list(right.elts)
                for side in sides:
                    if _str(side) in names:
                        yield node.lineno, f"compares {_str(side)!r}"
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("startswith", "endswith") and node.args):
            text = _str(node.args[0])
            if text and (text in names or text in prefixes):
                yield node.lineno, f"{node.func.attr}({text!r})"


def _registry_sets() -> list[frozenset[str]]:
    """The name sets a hand copy would repeat: every strategy, the offered ones (with and without the
    baseline), the score-aware ones, every metric."""
    from subsetsel_core.ranks.metrics import METRICS
    from subsetsel_core.strategies import BASELINE, REGISTRY, SCORE_AWARE, STRATEGIES

    sets = [set(REGISTRY), set(STRATEGIES), set(STRATEGIES) - {BASELINE}, set(SCORE_AWARE), set(METRICS)]
    return [frozenset(x) for x in sets if len(x) >= 2]


def name_lists(tree: ast.AST, names: set[str]) -> Iterator[tuple[int, str]]:
    """Hand-written copies of a registry: a list, tuple, set or the keys of a dict of registry names
    (and nothing else) that name a whole registry set (every strategy, every metric, …). Choosing a few
    entries (a test that runs ``("random", "kmeans")``) is a choice, not a copy."""
    whole = _registry_sets()
    for node in ast.walk(tree):
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            elts = node.elts
        elif isinstance(node, ast.Dict):
            elts = [k for k in node.keys if k is not None]
        else:
            continue
        found = [s for s in map(_str, elts) if s in names]
        if len(found) >= 2 and len(found) == len(elts) and frozenset(found) in whole:
            yield node.lineno, f"lists {', '.join(found[:4])}{' …' if len(found) > 4 else ''}"


def test_no_registry_name_compared_as_text() -> None:
    names = _registry_names()
    bad = []
    for path in _checked_files():
        if path.relative_to(ROOT).parts[0] in ("tests", "benchmarks"):
            continue  # a test's assertion names the expected entry
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bad += [f"{path.relative_to(ROOT)}:{line}: {what}" for line, what in name_comparisons(tree, names)]
    assert not bad, "ask the registry record instead of the name:\n" + "\n".join(bad)


#: Files that still write lists of registry names by hand (path → how many). May only shrink: a
#: test that runs a few strategies picks them from the registry (``STRATEGIES[:2]``, the
#: ``deterministic`` ones, …).
NAME_LISTS: dict[str, int] = {
    "benchmarks/bench_interactions.py": 2,
    "benchmarks/naive_protocol.py": 2,  # the straightforward reference loop, written apart from the product
    "tests/core/evaluation/test_headroom.py": 1,
    "tests/core/ranks/test_metrics.py": 1,
}


def test_no_hand_written_list_of_registry_names() -> None:
    names = _registry_names()
    found: dict[str, list[str]] = {}
    for path in _checked_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = str(path.relative_to(ROOT))
        found.update({rel: [f"{rel}:{line}: {what}" for line, what in hits]}
                     if (hits := list(name_lists(tree, names))) else {})
    bad = [h for rel, hits in found.items() if len(hits) > NAME_LISTS.get(rel, 0) for h in hits]
    assert not bad, "read the registry (STRATEGIES, METRICS, …) instead:\n" + "\n".join(bad)
    fixed = sorted(rel for rel, n in NAME_LISTS.items() if len(found.get(rel, [])) < n)
    assert not fixed, f"lower NAME_LISTS (fewer hand-written lists now): {fixed}"


#: Names of the project's own modules and folders (the tests import each other by file name).
LOCAL = {p.stem for d in CHECKED_DIRS for p in (ROOT / d).rglob("*.py")} | {*CHECKED_DIRS, "app", "__future__"}


def _third_party(module: str) -> bool:
    top = module.split(".")[0]
    return bool(top) and top not in sys.stdlib_module_names and top not in LOCAL


def library_patches(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Patches of a dependency's internals: an assignment to an attribute of an imported
    third-party module, ``mock.patch`` / ``monkeypatch.setattr`` of a third-party path or object,
    and an import of a dependency's private module or name."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
                if _third_party(a.name) and any(p.startswith("_") for p in a.name.split(".")[1:]):
                    yield node.lineno, f"imports private module {a.name}"
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
            if _third_party(node.module):
                if any(p.startswith("_") for p in node.module.split(".")[1:]):
                    yield node.lineno, f"imports private module {node.module}"
                for a in node.names:
                    if a.name.startswith("_") and not a.name.startswith("__"):
                        yield node.lineno, f"imports private name {a.name} from {node.module}"

    def root(expr: ast.AST) -> str | None:
        while isinstance(expr, ast.Attribute):
            expr = expr.value
        return aliases.get(expr.id) if isinstance(expr, ast.Name) else None

    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for t in targets:
            if (isinstance(t, ast.Attribute) and (mod := root(t.value)) and _third_party(mod)
                    and ".session_state" not in ast.unparse(t)):  # session state is Streamlit's public API
                yield node.lineno, f"assigns {ast.unparse(t)} (an attribute of {mod})"
        if isinstance(node, ast.Call) and node.args:
            func = ast.unparse(node.func)
            if not (func.endswith(("patch", "patch.object", "setattr", "delattr")) and func != "setattr"):
                continue
            first = node.args[0]
            text = _str(first)
            if text is not None and _third_party(text) and "." in text:
                yield node.lineno, f"{func}({text!r})"
            elif text is None and (mod := root(first)) and _third_party(mod):
                yield node.lineno, f"{func}({ast.unparse(first)}, …) (an object of {mod})"


def test_no_patch_of_a_library_and_no_private_module() -> None:
    bad = []
    for path in _checked_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bad += [f"{path.relative_to(ROOT)}:{line}: {what}" for line, what in library_patches(tree)]
    assert not bad, "use the library's public API:\n" + "\n".join(bad)
