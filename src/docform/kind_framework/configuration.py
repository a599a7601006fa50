"""A configuration whose values may be secrets: an integration installation's, an MCP
server's headers, a context connection's setup.

Which values are secret comes from what the service declares, where it declares it: an
integration's configuration schema marks a setting secret with ``format: "password"`` or
``writeOnly: true`` (`declared_secrets`; docs/service.md). A secret is compared by value, shown
as ``(sensitive)``, and must be written ``${env:NAME}`` or ``{file: PATH}``: in plain text it is
refused at its file:line (`plain_secrets`). Any other value is shown like any other field,
except a value written as a reference (whatever comes from the environment stays hidden) and,
where nothing is declared, every live text value. A reference is sent as a ``$secret`` that
apply resolves again; export writes each secret as ``${env:...}``, never its value, and every
other value as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar

from pydantic import Field

from docform.engine.capabilities import ComparesOwnWay
from docform.engine.plan import SecretRef
from docform.engine.values import differing_parts, same_value
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
    """A configuration value compared by what it is and never shown. It defines no equality of
    its own: the kinds that hold one compare it through `ComparesConcealed`, where a reader of
    the kind sees the rule."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def plan_json(self) -> str:
        return SENSITIVE

    def __repr__(self) -> str:
        return SENSITIVE

    __str__ = __repr__


def revealed(value: Any) -> Any:
    """``value`` with every `Concealed` part replaced by what it conceals, for comparing only."""
    if isinstance(value, Concealed):
        return revealed(value.value)
    if isinstance(value, Mapping):
        return {key: revealed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [revealed(item) for item in value]
    return value


class ComparesConcealed(ComparesOwnWay):
    """The comparison of a kind whose fields ``concealed_fields`` hold configurations: by what
    each value is, concealed or not (the live side conceals every text value where nothing
    declares which are secret, the manifest side only its references); a changed part is shown
    as it stands on each side, concealed parts as ``(sensitive)``."""

    concealed_fields: ClassVar[frozenset[str]]

    def same_field(self, name: str, want: Any, have: Any) -> bool:
        if name in self.concealed_fields:
            return bool(revealed(want) == revealed(have))
        return same_value(want, have)

    def changed_parts(self, name: str, before: Any, after: Any) -> list[tuple[str, Any, Any]]:
        if name in self.concealed_fields:
            return _differing_revealed(name, before, after)
        return differing_parts(name, before, after)


def _differing_revealed(path: str, before: Any, after: Any) -> list[tuple[str, Any, Any]]:
    if revealed(before) == revealed(after):
        return []
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        return [
            part
            for key in sorted(set(before) | set(after), key=str)
            for part in _differing_revealed(f"{path}.{key}", before.get(key), after.get(key))
        ]
    return [(path, before, after)]


def wanted(configuration: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest's configuration as compared: secret references concealed, plain text and
    other values as written."""
    return {key: _wanted_value(value) for key, value in configuration.items()}


def _wanted_value(value: Any) -> Any:
    if isinstance(value, Secret):
        return value.value if value.is_literal else Concealed(value.value)
    return value


Secrets = frozenset[str] | None
"""The keys of a configuration that are secret; None where nothing is declared (every text
value is then taken for one)."""


def declared_secrets(schema: Any) -> Secrets:
    """The secret settings of a declared configuration schema (``{properties: {...}}``): those
    marked ``format: "password"`` or ``writeOnly: true``; None without a schema of settings
    (nothing declared, or a configuration the service draws itself)."""
    if not isinstance(schema, Mapping) or not isinstance(schema.get("properties"), Mapping):
        return None
    return frozenset(
        key
        for key, setting in schema["properties"].items()
        if isinstance(setting, Mapping)
        and (setting.get("format") == "password" or setting.get("writeOnly") is True)
    )


def declared_write_only(schema: Any) -> frozenset[str]:
    """The settings a declared configuration schema marks ``writeOnly``: never answered."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return frozenset()
    return frozenset(
        key
        for key, setting in properties.items()
        if isinstance(setting, Mapping) and setting.get("writeOnly") is True
    )


def unread_exported(schema: Any, configuration: Any, prefix: str, path: str) -> dict[str, EnvValue]:
    """The write-only settings a live configuration must hold (the schema requires them) but
    does not show, each as the variable export writes for it (``PREFIX_KEY``); ``path``: the
    configuration's in its entry."""
    required = schema.get("required") if isinstance(schema, Mapping) else None
    held = configuration if isinstance(configuration, Mapping) else {}
    return {
        key: EnvValue(_env_suffix(f"{prefix}_{key}"), unread=f"{path}.{key}")
        for key in sorted(declared_write_only(schema))
        if key in (required or ()) and key not in held
    }


def unread(configuration: Any, write_only: frozenset[str], prefix: str) -> frozenset[str]:
    """The paths (``PREFIX.KEY``) of the write-only settings a live configuration lacks."""
    held = configuration if isinstance(configuration, Mapping) else {}
    return frozenset(f"{prefix}.{key}" for key in write_only if key not in held)


def held_unread(live_configuration: dict[str, Any], unread: frozenset[str], prefix: str) -> None:
    """Show each write-only setting (``PREFIX.KEY`` in ``unread``) as held and hidden, not as
    missing: the service keeps it, it only never answers it."""
    for path in sorted(unread):
        live_configuration[path.removeprefix(f"{prefix}.")] = Concealed(None)


def sources(
    configuration: Mapping[str, Any] | None, prefix: str, rotate: str | None = None
) -> dict[str, str]:
    """Where each setting written as a reference comes from, by path (``PREFIX.KEY``)."""
    return {
        f"{prefix}.{key}": sent_from(value, rotate)
        for key, value in (configuration or {}).items()
        if isinstance(value, Secret) and not value.is_literal
    }


def sent_from(secret: Secret, rotate: str | None) -> str:
    """The source docform.lock records for ``secret``: its reference, and the entry's
    ``rotate`` marker, whose change sends it again from the same reference."""
    return f"{secret.describe()} (rotate {rotate})" if rotate else secret.describe()


def live(configuration: Any, secrets: Secrets = None) -> dict[str, Any]:
    """A live configuration as compared: its secrets concealed (every text value, where
    nothing is declared)."""
    if not isinstance(configuration, Mapping):
        return {}
    if secrets is None:
        return {key: _live_value(value) for key, value in configuration.items()}
    return {
        key: Concealed(value) if key in secrets else value for key, value in configuration.items()
    }


def _live_value(value: Any) -> Any:
    if isinstance(value, str):
        return Concealed(value)
    if isinstance(value, list):
        return [_live_value(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _live_value(item) for key, item in value.items()}
    return value


def plain_secrets(configuration: Mapping[str, Any] | None, secrets: Secrets) -> list[str]:
    """The keys of ``configuration`` (as written) that hold a declared secret in plain text."""
    if configuration is None or not secrets:
        return []
    return [
        key
        for key, value in configuration.items()
        if key in secrets and not (isinstance(value, Secret) and not value.is_literal)
    ]


def body(configuration: Mapping[str, Any], source: str) -> dict[str, Any]:
    """What the API is sent: secret references as ``$secret`` named ``SOURCE.KEY``."""
    return {key: _sent(value, f"{source}.{key}") for key, value in configuration.items()}


def _sent(value: Any, source: str) -> Any:
    if isinstance(value, Secret):
        return value.value if value.is_literal else SecretRef(source)
    return value


def exported(configuration: Any, prefix: str, secrets: Secrets = None) -> dict[str, Any]:
    """A live configuration as the manifests write it: its secrets read from the environment
    (``${env:DOCFORM_..._PREFIX_KEY}``; every text value where nothing is declared), everything
    else as it is."""
    if not isinstance(configuration, Mapping):
        return {}
    return {
        key: EnvValue(_env_suffix(f"{prefix}_{key}"))
        if (key in secrets if secrets is not None else isinstance(value, str))
        else value
        for key, value in configuration.items()
    }


def _env_suffix(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").upper()
