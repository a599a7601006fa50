"""Bad manifests through the CLI: `docform validate` and `docform plan` never show a traceback.

Random YAML and mutations of the valid manifests of ``tests/fixtures/basic`` and
``examples/quickstart`` (text edits that break the syntax, value edits that break the format)
must end in exit 0, or exit 1 with every problem located as ``FILE:LINE:COL``. Hostile files (an
alias bomb, a 50 MB file, millions of tiny values) are refused with bounded memory.

Examples per property: 12 by default, ``DOCFORM_FUZZ_EXAMPLES`` when set (a deep run: 500).
"""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
import sys
import tempfile
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from planning import FIXTURES, run, seeded_sandbox

REPO = Path(__file__).parents[2]
CORPORA = {
    "basic": (FIXTURES / "basic", FIXTURES / "seed.yaml"),
    "quickstart": (REPO / "examples" / "quickstart", REPO / "examples" / "sandbox-seed.yaml"),
}
FUZZ = settings(
    max_examples=fuzz_examples(12),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
LOCATED = re.compile(r"^(?P<file>[^:\n]+\.ya?ml):(?P<line>\d+):(?P<column>\d+): \S")
PEAK_MEMORY_BOUND = 200 * 1024 * 1024


@pytest.fixture(scope="module")
def sandboxes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A seeded sandbox per corpus; planning only reads, so examples can share them."""
    return {
        name: seeded_sandbox(tmp_path_factory.mktemp(name), seed)
        for name, (_, seed) in CORPORA.items()
    }


@contextmanager
def corpus_copy(name: str) -> Iterator[Path]:
    """A scratch copy of one corpus directory (certificates included)."""
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch) / name
        shutil.copytree(CORPORA[name][0], directory)
        yield directory


def manifest_names(directory: Path) -> list[str]:
    return sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*.yaml"))


def shown_names(directory: Path) -> list[str]:
    """The manifest files as docform names them: joined to the directory it was given."""
    return [f"{directory}/{name}" for name in manifest_names(directory)]


# -- what every outcome must look like -------------------------------------------------------


def assert_no_crash(result: Result) -> None:
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed, f"{result.exception!r}\n{result.output}"
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1), result.output


def assert_located(lines: list[str], files: list[str]) -> None:
    """Every line is ``FILE:LINE:COL: ...`` about one of ``files``, lines and columns from 1."""
    assert lines, "exit 1 without a single problem"
    for line in lines:
        found = LOCATED.match(line)
        assert found, f"not located: {line!r}"
        assert found["file"] in files, line
        assert int(found["line"]) >= 1 and int(found["column"]) >= 1, line


def check_validate(directory: Path, sandbox: Path) -> int:
    result = run(["validate", directory], sandbox)
    assert_no_crash(result)
    if result.exit_code == 1:
        assert_located(result.stdout.splitlines(), shown_names(directory))
    else:
        assert result.stdout.startswith("Valid: 1 organization"), result.output
    return result.exit_code


def check_plan(directory: Path, sandbox: Path, validated: int) -> None:
    """Plan agrees with validate; its own errors are located too, or name the live cause."""
    result = run(["plan", directory], sandbox)
    assert_no_crash(result)
    if validated == 1:
        assert result.exit_code == 1, result.output
    if result.exit_code == 0:
        return
    *details, last = result.stderr.strip().splitlines()
    assert last.startswith("Error: "), result.stderr
    if validated == 1 or details:
        assert_located(details, shown_names(directory))
    else:
        # The manifests are valid but the live organization says no: a pinned id or the
        # organization's id that the sandbox does not know.
        assert re.search(r"\.yaml:\d+:\d+: |organization '[^']*' does not exist", last), last


def check_both(directory: Path, sandbox: Path) -> None:
    check_validate_then_plan = check_validate(directory, sandbox)
    check_plan(directory, sandbox, check_validate_then_plan)


# -- mutations -------------------------------------------------------------------------------

SNIPPETS = st.sampled_from(
    [":", " ", "  ", "\n", "-", "- ", "{", "}", "[", "]", ",", "&a ", "*a", "<<: ", "!!python/x ",
     "!x ", "'", '"', "#", "|", ">", "? ", "%YAML 1.1\n", "---\n", "...\n", "\t", "~", "\x00",
     "${env:NOPE}", "{file: ../../etc/passwd}", "null", "true", "1e999", "é", "\ufeff"]
)  # fmt: skip


@st.composite
def text_edits(draw: st.DrawFn) -> Callable[[str], str]:
    """One edit of a file's text: a line dropped, doubled, re-indented, or a snippet inserted."""
    action = draw(st.sampled_from(["drop", "double", "indent", "insert", "truncate", "swap"]))
    position = draw(st.floats(0, 1, exclude_max=True))
    snippet = draw(SNIPPETS)
    shift = draw(st.sampled_from([-2, -1, 1, 2, 4]))

    def edit(text: str) -> str:
        lines = text.splitlines(keepends=True) or [""]
        at = int(position * len(lines))
        if action == "drop":
            del lines[at]
        elif action == "double":
            lines.insert(at, lines[at])
        elif action == "indent":
            line = lines[at]
            lines[at] = " " * shift + line if shift > 0 else line[-shift:]
        elif action == "swap" and at + 1 < len(lines):
            lines[at], lines[at + 1] = lines[at + 1], lines[at]
        else:
            cut = int(position * len(text))
            return text[:cut] if action == "truncate" else text[:cut] + snippet + text[cut:]
        return "".join(lines)

    return edit


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(),
    st.text(max_size=30),
    st.text(min_size=300, max_size=1200),
    st.sampled_from(
        ["admin", "guest", "owner", "engineering", "handbook", "docs", "start", "platform", "",
         "${env:NOPE}", "https://example.test/x.yaml", "http://user:pw@example.test/x", "a@b.test",
         "2024-01-01", "ops", "v1"]
    ),
)  # fmt: skip
keys = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        ["id", "title", "members", "parent", "collection", "space", "path", "default", "sections",
         "spaces", "sectionGroups", "formerly", "protect", "file", "prune", "role", "sso", "<<"]
    ),
)  # fmt: skip
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=12,
)


@st.composite
def value_edits(draw: st.DrawFn) -> Callable[[Any], None]:
    """One edit of a parsed document, somewhere along a random path: delete, replace, rename,
    add."""
    steps = draw(st.lists(st.floats(0, 1, exclude_max=True), max_size=6))
    action = draw(st.sampled_from(["delete", "replace", "rename", "add"]))
    new_key, new_value = draw(keys), draw(values)

    def edit(document: Any) -> None:
        node = document
        for step in steps:
            children = list(node) if isinstance(node, dict) else range(len(node))
            if not children:
                break
            child = children[int(step * len(children))]
            if not isinstance(node[child], dict | list) or not node[child]:
                break
            node = node[child]
        if not node:
            return
        target = list(node)[int(steps[-1] * len(node))] if steps else next(iter(node), 0)
        if isinstance(node, list):
            target = int(steps[-1] * len(node)) if steps else 0
        if action == "delete":
            del node[target]
        elif action == "replace":
            node[target] = copy.deepcopy(new_value)
        elif isinstance(node, dict):
            node[new_key] = node.pop(target) if action == "rename" else copy.deepcopy(new_value)
        else:
            node.append(copy.deepcopy(new_value))

    return edit


def pick_file(directory: Path, where: float) -> Path:
    names = manifest_names(directory)
    return directory / names[int(where * len(names))]


# -- properties ------------------------------------------------------------------------------


@FUZZ
@given(
    corpus=st.sampled_from(sorted(CORPORA)),
    where=st.floats(0, 1, exclude_max=True),
    edits=st.lists(text_edits(), min_size=1, max_size=3),
)
def test_text_edits_of_valid_manifests_are_accepted_or_located(
    sandboxes: dict[str, Path], corpus: str, where: float, edits: list[Callable[[str], str]]
) -> None:
    with corpus_copy(corpus) as directory:
        path = pick_file(directory, where)
        text = path.read_text(encoding="utf-8")
        for edit in edits:
            text = edit(text)
        path.write_text(text, encoding="utf-8")
        check_both(directory, sandboxes[corpus])


@FUZZ
@given(
    corpus=st.sampled_from(sorted(CORPORA)),
    where=st.floats(0, 1, exclude_max=True),
    edits=st.lists(value_edits(), min_size=1, max_size=3),
)
def test_value_edits_of_valid_manifests_are_accepted_or_located(
    sandboxes: dict[str, Path], corpus: str, where: float, edits: list[Callable[[Any], None]]
) -> None:
    with corpus_copy(corpus) as directory:
        path = pick_file(directory, where)
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        for edit in edits:
            edit(document)
        path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False))
        check_both(directory, sandboxes[corpus])


@FUZZ
@given(document=st.one_of(values, st.dictionaries(keys, values, max_size=6)))
def test_random_yaml_is_accepted_or_located(sandboxes: dict[str, Path], document: Any) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        (directory / "m.yaml").write_text(yaml.safe_dump(document, allow_unicode=True))
        check_both(directory, sandboxes["basic"])


@FUZZ
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_random_text_is_accepted_or_located(sandboxes: dict[str, Path], text: str) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        (directory / "m.yaml").write_text(text, encoding="utf-8")
        check_validate(directory, sandboxes["basic"])


def test_unedited_corpora_validate_and_plan(sandboxes: dict[str, Path]) -> None:
    """The starting points are valid, so the edits above are what makes examples fail."""
    for name in CORPORA:
        with corpus_copy(name) as directory:
            assert check_validate(directory, sandboxes[name]) == 0
            assert run(["plan", directory], sandboxes[name]).exit_code == 0


# -- hostile files ---------------------------------------------------------------------------


def peak_memory_of(action: Callable[[], Result]) -> tuple[Result, int]:
    tracemalloc.start()
    try:
        result = action()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_alias_bomb_is_refused_with_bounded_memory(tmp_path: Path, sandboxes: dict) -> None:
    lines = ["organization: {id: org_acme}", "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    (tmp_path / "bomb.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result, peak = peak_memory_of(lambda: run(["validate", tmp_path], sandboxes["basic"]))
    assert result.exit_code == 1
    assert result.stdout == f"{tmp_path}/bomb.yaml:6:28: aliases expand to over 50000 values\n"
    assert peak < PEAK_MEMORY_BOUND


def test_fifty_megabyte_file_is_refused_unread(tmp_path: Path, sandboxes: dict) -> None:
    chunk = "- padding padding padding padding padding padding padding padding padding\n"
    with (tmp_path / "big.yaml").open("w", encoding="utf-8") as handle:
        handle.write("organization: {id: org_acme}\nlist:\n")
        handle.write(chunk * (50 * 1024 * 1024 // len(chunk)))
    size = (tmp_path / "big.yaml").stat().st_size
    result, peak = peak_memory_of(lambda: run(["plan", tmp_path], sandboxes["basic"]))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"{tmp_path}/big.yaml:1:1: file is {size} bytes, over the 5 MB limit"
    )
    assert peak < 5 * 1024 * 1024  # the file was never read


def test_millions_of_tiny_values_under_the_size_limit_are_refused_with_bounded_memory(
    tmp_path: Path,
) -> None:
    """Measured as the peak RSS of a separate process: under tracemalloc, building the
    250,000 values that the budget allows takes several times longer."""
    (tmp_path / "tiny.yaml").write_text("list: [" + "1," * 2_400_000 + "]\n", encoding="utf-8")
    child = subprocess.run(
        [sys.executable, "-c", REPORT_PEAK_RSS, "validate", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert child.returncode == 1, child.stderr
    assert child.stdout.startswith(f"{tmp_path}/tiny.yaml:1:")
    assert "over 250000 keys and values in one file; split it into several files" in child.stdout
    peak_kib = int(child.stderr.splitlines()[-1].removeprefix("peak-rss-kib="))
    assert peak_kib * 1024 < PEAK_MEMORY_BOUND


# Runs docform's CLI, then reports its own peak resident memory in KiB. VmHWM, not ru_maxrss:
# ru_maxrss keeps the peak of the forked pytest worker across exec.
REPORT_PEAK_RSS = """
import re, sys
from docform.cli import main
sys.argv[0] = "docform"
try:
    main()
finally:
    peak = re.search(r"VmHWM:\\s*(\\d+)", open("/proc/self/status").read()).group(1)
    print("peak-rss-kib=" + peak, file=sys.stderr)
"""
