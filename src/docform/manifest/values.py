"""Value references: ``${env:NAME}`` and ``{file: PATH}``.

Both are allowed in secret-bearing fields only; elsewhere they are an error, so that what a
plan shows is what the files say, and a value read from the environment (the API token, a home
directory) is never printed or sent anywhere but where a secret goes: an ignore pattern is
quoted in "matches nothing", an ``api:`` URL is looked up in the DNS. Such a value is not read.
PATH is relative to the manifest directory and may not leave it; the file's text is used
without surrounding whitespace. Secret-bearing fields become `Secret` values that keep the
reference as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path as FsPath
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from docform.errors import DocformError
from docform.manifest.document import ENTRY_SECTIONS
from docform.manifest.problems import Path, Problem
from docform.manifest.sources import MergedTree
from docform.model.fields import Secret


def _secret_fields(model: type[BaseModel], base: Path) -> Iterator[Path]:
    """Paths of the fields of ``model`` typed `Secret`, through nested models and the values
    of mappings (``*`` for any key)."""
    for name, info in model.model_fields.items():
        yield from _secret_paths(info.annotation, (*base, name))


def _secret_paths(annotation: Any, path: Path) -> Iterator[Path]:
    if _holds_secret(annotation):
        yield path
    for inner in _models_in(annotation):
        yield from _secret_fields(inner, path)
    for values in _mapping_values(annotation):
        yield from _secret_paths(values, (*path, "*"))


def _mapping_values(annotation: Any) -> list[Any]:
    """The value types of the mappings ``annotation`` may be (``dict[str, X] | None``: X)."""
    if get_origin(annotation) is Annotated:
        return _mapping_values(get_args(annotation)[0])
    if get_origin(annotation) is dict:
        return [get_args(annotation)[1]]
    if get_origin(annotation) in (Union, UnionType):
        return [value for arg in get_args(annotation) for value in _mapping_values(arg)]
    return []


def _holds_secret(annotation: Any) -> bool:
    if annotation is Secret:
        return True
    if get_origin(annotation) is Annotated:
        return _holds_secret(get_args(annotation)[0])
    return get_origin(annotation) in (Union, UnionType) and any(
        _holds_secret(arg) for arg in get_args(annotation)
    )


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    if get_origin(annotation) in (Union, UnionType):
        return [model for arg in get_args(annotation) for model in _models_in(arg)]
    return []


# Fields that may hold ``${env:NAME}`` or ``{file: PATH}``: those the entry models type `Secret`
# (shallow ones first, as messages list them).
SECRET_FIELDS: tuple[Path, ...] = tuple(
    sorted(
        (
            path
            for name, section in ENTRY_SECTIONS.items()
            for path in _secret_fields(section.entry, (name, "*"))
        ),
        key=lambda path: (len(path), path),
    )
)
_SECRET_SECTIONS = frozenset(pattern[0] for pattern in SECRET_FIELDS)
ENV_REFERENCE = re.compile(r"\$\{env:([^}]*)\}")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MAX_SECRET_FILE_BYTES = 1024 * 1024


def _only_in_secret_fields(path: Path, instead: str = "") -> str:
    """Why a reference at ``path`` is refused, naming the secret fields of its own section only
    (a list of every section's would grow with each kind and bury the one that matters)."""
    section = str(path[0])
    own = [secret for secret in SECRET_FIELDS if secret[0] == section]
    names = [".".join(str(part) for part in secret[2:]) for secret in own]
    if not names:
        return (
            f"is only allowed in secret fields, and `{section}:` has none: "
            f"{instead or 'write the value itself'} (`docform schema` describes each field "
            "that takes one)"
        )
    return f"is only allowed in secret fields (in `{section}:`: {', '.join(names)})"


class UnresolvedReference(DocformError):
    """A ``${env:NAME}`` or ``{file: PATH}`` that cannot be resolved; the message says why."""


@dataclass
class ValueResolver:
    """Resolves references in a merged tree in place, recording problems on it."""

    tree: MergedTree
    directory: FsPath
    env: Mapping[str, str]

    def run(self) -> None:
        self._walk(self.tree.sections, ())

    def _walk(self, value: Any, path: Path) -> None:
        items = value.items() if isinstance(value, dict) else enumerate(value)
        # Most values hold no reference: their paths are only built when one might.
        secrets_below = not path or path[0] in _SECRET_SECTIONS
        for key, item in list(items):
            if secrets_below and _is_secret_field(child := (*path, key)):
                value[key] = self._secret(item, child)
            elif isinstance(item, str):
                if "${" in item:
                    self._refuse_env((*path, key))
            elif isinstance(item, dict | list):
                child = (*path, key)
                if _is_file_reference(item):
                    self._problem(child, f"{{file: PATH}} {_only_in_secret_fields(child)}")
                else:
                    self._walk(item, child)

    def _refuse_env(self, path: Path) -> None:
        instead = "set DOCFORM_API_URL instead" if path == ("docform", "api") else ""
        self._problem(path, f"${{env:...}} {_only_in_secret_fields(path, instead)}")

    def _secret(self, value: Any, path: Path) -> Any:
        try:
            if isinstance(value, str):
                return Secret(value, self._interpolate(value))
            if _is_file_reference(value):
                return Secret(dict(value), self._read_file(value["file"]))
        except UnresolvedReference as exc:
            self._problem(path, str(exc))
        return value

    def _interpolate(self, text: str) -> str:
        return interpolate_env(text, self.env)

    def _read_file(self, relative: str) -> str:
        return read_secret_file(self.directory, relative)

    def _problem(self, path: Path, message: str) -> None:
        self.tree.problems.append(Problem.at(self.tree.sources.locate(path), path, message))
        self.tree.reported.add(path)


def _is_secret_field(path: Path) -> bool:
    if path[0] not in _SECRET_SECTIONS:
        return False
    return any(
        len(path) == len(pattern)
        and all(p in ("*", part) for p, part in zip(pattern, path, strict=True))
        for pattern in SECRET_FIELDS
    )


def _is_file_reference(value: Any) -> bool:
    return isinstance(value, dict) and list(value) == ["file"] and isinstance(value["file"], str)


def resolve_values(tree: MergedTree, directory: FsPath, env: Mapping[str, str]) -> None:
    """Resolve ``${env:NAME}`` and ``{file: PATH}`` in ``tree`` in place (see module doc)."""
    ValueResolver(tree, directory, env).run()


def interpolate_env(text: str, env: Mapping[str, str]) -> str:
    """``text`` with every ``${env:NAME}`` replaced by its value."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if not ENV_NAME.match(name):
            raise UnresolvedReference(f"'${{env:{name}}}' is not a valid environment variable name")
        if name not in env:
            raise UnresolvedReference(f"environment variable '{name}' is not set")
        return env[name]

    return ENV_REFERENCE.sub(replace, text)


def read_secret_file(directory: FsPath, relative: str) -> str:
    """The text of ``relative`` under ``directory``, stripped; never a file outside it."""
    root = directory.resolve()
    target = (root / relative).resolve()
    if not target.is_relative_to(root):
        raise UnresolvedReference(f"file '{relative}' is outside the manifest directory")
    if not target.is_file():
        raise UnresolvedReference(f"file '{relative}' not found")
    if target.stat().st_size > MAX_SECRET_FILE_BYTES:
        raise UnresolvedReference(f"file '{relative}' is over {MAX_SECRET_FILE_BYTES} bytes")
    try:
        return target.read_text(encoding="utf-8").strip()
    except UnicodeDecodeError:
        raise UnresolvedReference(f"file '{relative}' is not UTF-8 text") from None
    except OSError as exc:
        raise UnresolvedReference(f"file '{relative}' cannot be read: {exc.strerror}") from None


def resolve_secret(
    reference: str | Mapping[str, str], directory: FsPath, env: Mapping[str, str]
) -> Secret:
    """Resolve a secret reference as kept in a saved plan (``Secret.reference``) again.

    Raises `UnresolvedReference` when a variable is missing or a file cannot be read.
    """
    if isinstance(reference, str):
        return Secret(reference, interpolate_env(reference, env))
    return Secret(dict(reference), read_secret_file(directory, reference["file"]))
