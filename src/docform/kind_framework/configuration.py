"""A free-form configuration whose values may be secrets (an integration installation's).

The service says an installation's ``configuration`` may hold third-party credentials, so every
text value of it, live or wanted, is `Concealed`: compared by value, shown as ``(sensitive)``.
Plans still diff it key by key (``configuration.apiKey: (sensitive) -> (sensitive)``), and show
what is not text (a number, a switch) and values written as plain text in the manifests
(which are in the repository anyway). A value written ``${env:NAME}`` or ``{file: PATH}`` is
sent as a ``$secret`` reference that apply resolves again; export writes every text value as
``${env:...}``, never the value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from docform.engine.plan import SecretRef
from docform.export.model import EnvValue
from docform.model.fields import Secret

CONFIG_KEY_PATTERN = r"^[A-Za-z0-9_-]{1,100}$"
SENSITIVE = "(sensitive)"

ConfigValue = bool | int | float | Secret | list[Any] | dict[str, Any]
Configuration = Annotated[
    dict[Annotated[str, Field(pattern=CONFIG_KEY_PATTERN)], ConfigValue],
    Field(
        description="The integration's settings by name; a value may be ${env:NAME} or "
        "{file: PATH} (never shown), and the whole mapping is what the service is sent."
    ),
]


class Concealed:
    """A configuration value compared by what it is and never shown."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Concealed):
            return bool(self.value == other.value)
        return bool(self.value == other)

    def __hash__(self) -> int:
        return hash(str(self.value))

    def plan_json(self) -> str:
        return SENSITIVE

    def __repr__(self) -> str:
        return SENSITIVE

    __str__ = __repr__


def wanted(configuration: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest's configuration as compared: secret references concealed, plain text and
    other values as written."""
    return {key: _wanted_value(value) for key, value in configuration.items()}


def _wanted_value(value: Any) -> Any:
    if isinstance(value, Secret):
        return value.value if value.is_literal else Concealed(value.value)
    return value


def live(configuration: Any) -> dict[str, Any]:
    """A live configuration as compared: every text value concealed."""
    if not isinstance(configuration, Mapping):
        return {}
    return {key: _live_value(value) for key, value in configuration.items()}


def _live_value(value: Any) -> Any:
    if isinstance(value, str):
        return Concealed(value)
    if isinstance(value, list):
        return [_live_value(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _live_value(item) for key, item in value.items()}
    return value


def body(configuration: Mapping[str, Any], source: str) -> dict[str, Any]:
    """What the API is sent: secret references as ``$secret`` named ``SOURCE.KEY``."""
    return {key: _sent(value, f"{source}.{key}") for key, value in configuration.items()}


def _sent(value: Any, source: str) -> Any:
    if isinstance(value, Secret):
        return value.value if value.is_literal else SecretRef(source)
    return value


def exported(configuration: Any, prefix: str) -> dict[str, Any]:
    """A live configuration as the manifests write it: text values read from the environment
    (``${env:DOCFORM_..._PREFIX_KEY}``), everything else as it is."""
    if not isinstance(configuration, Mapping):
        return {}
    return {
        key: EnvValue(_env_suffix(f"{prefix}_{key}")) if isinstance(value, str) else value
        for key, value in configuration.items()
    }


def _env_suffix(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").upper()
