"""The layers of docform, checked by walking every module's imports with `ast`.

Bottom to top: the shared modules (errors, the process's knobs), `untrusted` (redaction,
look-alikes, ids in paths), `service` (the service's documents and answer shapes, derived from
its definition) and `model` (the manifest entries' base), then `api` (talks HTTP) beside
`engine` (plans and applies whatever it is handed), then `kind_framework`, the `kinds` built
with it and the `kind_registry` that finds them, `manifest`, `workflow` (loads manifests, opens
clients, runs organizations), `render` and `cli`. An import never runs back up a floor, there
is no import cycle, and the engine imports nothing inside its functions.

The emulated service, `docform_sandbox`, stands beside docform: it uses docform's shared
modules, and only its plug-in modules touch `api` and `cli` (the seams it plugs into); docform
never imports it, but finds it through entry points (pyproject.toml).
"""

from __future__ import annotations

import ast
import functools
import graphlib
import os
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src"
PACKAGE = SOURCE / "docform"
EMULATOR = SOURCE / "docform_sandbox"
EMULATOR_SEAMS = {"docform_sandbox.plugin", "docform_sandbox.cli", "docform_sandbox.twin"}
"""The emulator's modules that plug it into docform, the only ones that use `api` or `cli`."""
FIXTURES = Path(__file__).resolve().parent / "fixtures"

FORBIDDEN = {
    "docform.engine": (
        "model",
        "kind_framework",
        "kinds",
        "manifest",
        "api",
        "cli",
        "workflow",
        "render",
        "export",
    ),
    "docform.model": (
        "engine",
        "kind_framework",
        "kinds",
        "manifest",
        "api",
        "cli",
        "workflow",
        "render",
        "export",
    ),
    "docform.kind_framework": (
        "kinds",
        "kind_registry",
        "cli",
        "workflow",
        "manifest",
        "api",
        "render",
    ),
    "docform.kinds": (
        "kind_registry",
        "cli",
        "workflow",
        "manifest",
        "api",
        "render",
    ),
    "docform.kind_registry": ("cli", "workflow", "manifest", "api", "render"),
    "docform.api": (
        "engine",
        "model",
        "kind_framework",
        "kinds",
        "manifest",
        "workflow",
        "cli",
        "render",
    ),
    "docform.manifest": ("engine", "api", "workflow", "cli", "render"),
    "docform_sandbox": (
        "engine",
        "model",
        "kind_framework",
        "kinds",
        "kind_registry",
        "manifest",
        "workflow",
        "render",
        "export",
        "policies",
    ),
    "docform.service": (
        "engine",
        "model",
        "kind_framework",
        "kinds",
        "kind_registry",
        "manifest",
        "api",
        "workflow",
        "cli",
        "render",
        "export",
    ),
    "docform.untrusted": (
        "service",
        "engine",
        "model",
        "kind_framework",
        "kinds",
        "kind_registry",
        "manifest",
        "api",
        "workflow",
        "policies",
        "cli",
        "render",
        "export",
    ),
    "docform.workflow": ("cli", "render"),
    "docform.policies": ("cli", "workflow", "manifest", "api", "render", "export"),
    "docform.render": ("cli", "api"),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The docform modules an import statement names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level == 0:
        module = node.module or ""
    else:
        package = module_name(path).split(".")
        if path.name != "__init__.py":
            package = package[:-1]
        base = package[: len(package) - node.level + 1]
        module = ".".join([*base, node.module] if node.module else base)
    # ``from docform.cli import apply`` imports the module docform.cli.apply
    return [
        f"{module}.{alias.name}" if f"{module}.{alias.name}" in MODULES else module
        for alias in node.names
    ]


@dataclass(frozen=True)
class Statements:
    """What the checks read of one module: its syntax tree is parsed once per test process,
    not once per check."""

    imports: tuple[tuple[int, str], ...]
    """Each import of a docform or emulator module, inside functions too: (line, module)."""
    top_level: frozenset[tuple[int, str]]
    """Those among them made by a statement of the module's body itself."""
    constant_calls: tuple[tuple[int, str], ...]
    """Each call whose first argument is a constant: (line, that constant as text)."""


@functools.cache
def statements(path: Path) -> Statements:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top_level = {id(node) for node in tree.body}
    found, top, calls = [], set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for name in imported(path, node):
                if name.split(".")[0] in ("docform", "docform_sandbox"):
                    found.append((node.lineno, name))
                    if id(node) in top_level:
                        top.add((node.lineno, name))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            calls.append((node.lineno, str(node.args[0].value)))
    return Statements(tuple(found), frozenset(top), tuple(calls))


def imports(path: Path, *, top_level_only: bool = False) -> list[tuple[int, str]]:
    found = statements(path)
    return [i for i in found.imports if i in found.top_level or not top_level_only]


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py")) + sorted(EMULATOR.rglob("*.py"))


def layer_of(module: str) -> str:
    """``docform.api`` for ``docform.api.client``; the emulator is one layer."""
    parts = module.split(".")
    return parts[0] if parts[0] == "docform_sandbox" else ".".join(parts[:2])


MODULES = {module_name(path) for path in modules()}


def test_the_layer_rules_see_every_package() -> None:
    layers = {layer_of(module_name(p)) for p in modules() if p != PACKAGE / "__init__.py"}
    assert set(FORBIDDEN) - layers == set()
    assert len(modules()) > 100


def test_no_import_runs_back_up_a_floor() -> None:
    wrong = []
    for path in modules():
        layer = layer_of(module_name(path))
        for line, name in imports(path):
            parts = name.split(".")
            target = parts[1] if parts[0] == "docform" and len(parts) > 1 else ""
            if target in FORBIDDEN.get(layer, ()):
                wrong.append(f"{path.relative_to(SOURCE)}:{line} imports {name}")
    assert wrong == []


def test_docform_never_imports_the_emulator() -> None:
    """Not at the top, not inside a function, not by a module name handed to importlib: the
    sandbox reaches docform only through the entry points its distribution declares."""
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        wrong += [f"{path.name}:{line} {name}" for line, name in imports(path) if emulator(name)]
        wrong += [
            f"{path.name}:{line} calls with {value!r}"
            for line, value in statements(path).constant_calls
            if emulator(value)
        ]
    assert wrong == []


def emulator(name: str) -> bool:
    return name == "docform_sandbox" or name.startswith("docform_sandbox.")


def test_only_the_emulators_seams_use_docforms_api_and_cli() -> None:
    wrong = []
    for path in sorted(EMULATOR.rglob("*.py")):
        if module_name(path) in EMULATOR_SEAMS:
            continue
        wrong += [
            f"{path.relative_to(SOURCE)}:{line} imports {name}"
            for line, name in imports(path)
            if name.split(".")[:2] in (["docform", "api"], ["docform", "cli"])
        ]
    assert wrong == []


def test_the_emulator_plugs_in_through_the_declared_entry_points() -> None:
    """pyproject.toml declares the emulator's entry points, and they name its seams."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    points = declared["project"]["entry-points"]
    assert points == {
        "docform.transports": {"sandbox": "docform_sandbox.plugin:SANDBOX"},
        "docform.commands": {"sandbox": "docform_sandbox.cli:sandbox"},
        "docform.twins": {"sandbox": "docform_sandbox.twin:TWINS"},
    }
    for group, named in points.items():
        installed = {point.name: point.value for point in entry_points(group=group)}
        assert installed == named, f"reinstall docform: pip install -e '.[sandbox,dev]' ({group})"
        for target in named.values():
            assert target.partition(":")[0] in EMULATOR_SEAMS
    command = entry_points(group="docform.commands", name="sandbox")
    assert isinstance(next(iter(command)).load(), click.Group)


def test_the_engine_imports_nothing_inside_its_functions() -> None:
    inside = []
    for path in (PACKAGE / "engine").rglob("*.py"):
        top = set(imports(path, top_level_only=True))
        inside += [
            f"{path.name}:{line} {name}" for line, name in imports(path) if (line, name) not in top
        ]
    assert inside == []


def test_no_import_cycle_between_modules() -> None:
    graph: dict[str, set[str]] = {}
    for path in modules():
        # Every import, those inside functions too: a lazy import hides a cycle, not ends it.
        names = {name for _, name in imports(path)}
        graph[module_name(path)] = {n for n in names if n in MODULES} - {module_name(path)}
    sorter = graphlib.TopologicalSorter(graph)
    try:
        sorter.prepare()
    except graphlib.CycleError as exc:
        pytest.fail(f"import cycle: {' -> '.join(exc.args[1])}")


def loaded_by(
    *arguments: str, url: str = "https://127.0.0.1:9"
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """``python -m docform ARGUMENTS`` against ``url``, and every module it imported, in order
    (those a package imports with `importlib.import_module`, as the kind and route registries
    do, are not listed)."""
    env = {
        **os.environ,
        "DOCFORM_API_URL": url,
        "DOCFORM_API_TOKEN": "tok_plan",
        "DOCFORM_API_TIMEOUT": "1",
        # Nothing listens: one call's retries end after this, not after their back-off.
        "DOCFORM_API_CALL_SECONDS": "0.2",
    }
    command = [sys.executable, "-X", "importtime", "-m", "docform", *arguments]
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    imported = [
        line.rsplit("|", 1)[1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    ]
    return result, imported


def among(imported: list[str], packages: tuple[str, ...]) -> list[str]:
    """The modules of ``imported`` that belong to ``packages`` (``docform_sandbox``, ``rich``)."""
    return [
        name
        for name in imported
        if any(name == package or name.startswith(f"{package}.") for package in packages)
    ]


def test_a_plan_against_an_https_service_loads_no_sandbox_or_server() -> None:
    """Planning against a URL that is not the sandbox never imports the sandbox, Starlette or
    uvicorn, nor the apply lock's file locking. Nothing listens at the URL: the plan fails
    reading, after the point where a sandbox would have been opened."""
    result, imported = loaded_by("plan", str(FIXTURES / "basic"))
    assert result.returncode == 1
    assert "no answer from https://127.0.0.1:9" in result.stderr
    assert "docform.workflow.connect" in imported
    assert "docform.api.connections" in imported  # the network transport, the sandbox's never
    assert among(imported, ("starlette", "uvicorn", "docform_sandbox", "filelock")) == []


def test_a_plan_against_the_sandbox_builds_no_seed_models_or_answer_descriptions(
    sandbox: Path,
) -> None:
    """A `sandbox:` plan starts the sandbox, but not what only seeding uses (the seed file's
    pydantic models), nor the description of its answers (the definition's, read from
    `docform_sandbox.answer_schema`'s file only by the OpenAPI description, `make answers` and
    the tests), nor the network transport's HTTP machinery (its client is handed the sandbox's
    transport), nor the web app's routes (the transport hands each request to its endpoint)."""
    result, imported = loaded_by("plan", str(FIXTURES / "basic"), url=f"sandbox:{sandbox}")
    assert result.returncode == 0, result.stderr
    assert "docform_sandbox.app" in imported
    assert among(imported, ("docform_sandbox.seed", "docform_sandbox.openapi_description")) == []
    assert among(imported, ("docform.api.connections", "httpcore", "h11")) == []
    probe = (
        "import docform_sandbox.app\n"
        "from docform_sandbox import answer_schema\n"
        "print(answer_schema.definition_answers.cache_info().currsize)\n"
        "print(docform_sandbox.app._api_routes.cache_info().currsize)\n"
    )
    started = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert started.stdout == "0\n0\n"


def test_seeding_loads_no_route_family_it_does_not_use(tmp_path: Path) -> None:
    """`docform sandbox seed` uses one route family's helpers (the custom hostnames'): the
    route package loads its families when their endpoints are asked for, not with the one."""
    probe = (
        "import atexit, sys\n"
        "from docform_sandbox.http import collect\n"
        "def families():\n"
        "    names = [m for m in sys.modules if m.startswith('docform_sandbox.routes.')]\n"
        "    print(sorted(m for m in names if collect(vars(sys.modules[m]))))\n"
        "atexit.register(families)\n"
        "from docform.cli import main\n"
        f"sys.argv = ['docform', 'sandbox', 'seed', '--data', {str(tmp_path / 's.sqlite')!r},\n"
        f"            {str(FIXTURES / 'seed.yaml')!r}]\n"
        "main()\n"
    )
    seeded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert seeded.returncode == 0, seeded.stderr
    assert seeded.stdout.splitlines()[-1] == "['docform_sandbox.routes.custom_hostnames']"


# What only some commands use: every docform process would pay for it at start-up otherwise
# (the suite starts docform about 150 times, CI jobs on every pull request).
NOT_AT_START = (
    "pydantic",
    "yaml",
    "httpx",
    "rich",
    "starlette",
    "uvicorn",
    "deepdiff",
    "confusable_homoglyphs",
    "cel_expr_python",
    "docform.manifest",
    "docform.kinds",
    "docform.engine",
    "docform.api",
    "docform_sandbox",
    "docform.workflow",
)


@pytest.mark.parametrize("arguments", [["--version"], ["--help"], ["plan", "--help"]])
def test_help_and_version_load_no_command_machinery(arguments: list[str]) -> None:
    result, imported = loaded_by(*arguments)
    assert result.returncode == 0, result.stderr
    # Listing the commands loads their modules (the modules these import show it: `loaded_by`
    # does not list those imported by name); the version loads none.
    assert ("docform.cli.multi" in imported) == (arguments != ["--version"])
    # The list of commands names the sandbox's: its light seam modules are loaded for that.
    plugged = {"docform_sandbox", *EMULATOR_SEAMS}
    assert [name for name in among(imported, NOT_AT_START) if name not in plugged] == []
    if arguments == ["--version"]:
        # No command runs: no plug-in is looked up (the lookup reads every installed
        # package's metadata) and no event loop is made.
        assert among(imported, ("importlib.metadata", "asyncio")) == []


def test_validate_loads_no_client_renderer_or_optional_checks() -> None:
    """``validate`` reads manifests only: no HTTP client, sandbox or terminal renderer; and
    manifests without policies, settings documents or look-alike addresses load neither CEL,
    deepdiff nor Unicode's confusables."""
    result, imported = loaded_by("validate", str(FIXTURES / "basic"))
    assert result.returncode == 0, result.stderr
    assert "docform.manifest.loader" in imported
    optional = ("httpx", "rich", "starlette", "uvicorn", "docform.api", "docform_sandbox")
    optional += ("deepdiff", "confusable_homoglyphs", "cel_expr_python")
    assert among(imported, optional) == []
