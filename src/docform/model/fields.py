"""Field types shared by several kinds: names, roles, languages, URLs, merge rules, secrets.

Limits and enumerations are those of docs/service.md. Roles are written as the API spells
them, except that the API's ``null`` role (a guest) is written ``guest``: a YAML ``null`` is too
easy to write by accident, and "left out" already means "not managed".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from docform.model.entry import ManifestModel
from docform.untrusted.lookalikes import (
    INVISIBLE_CHARACTERS,
    deceptive_text,
    escape_controls,
    shown,
)

NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"
_EMAIL_PART = rf"[^@\s{INVISIBLE_CHARACTERS}]+"
EMAIL_PATTERN = rf"^{_EMAIL_PART}@{_EMAIL_PART}\.{_EMAIL_PART}$"

DOMAIN_PATTERN = r"^([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?\.)+[a-zA-Z]{2,}$"
SLUG_PATTERN = r"^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$"
URL_PATTERN = re.compile(r"^https?://[^\s/?#]+[^\s]*$")
MAX_URL = 2048


escape_invisible = escape_controls


Name = Annotated[str, Field(pattern=NAME_PATTERN, max_length=100)]


def _check_lookalike(email: str) -> str:
    problem = deceptive_text(email)
    if problem:
        raise ValueError(f"'{shown(email)}' {problem}")
    return email


Email = Annotated[
    str, Field(pattern=EMAIL_PATTERN, max_length=254), AfterValidator(_check_lookalike)
]


@dataclass(frozen=True)
class RefTo:
    """Marks a value (or a mapping's keys) as the manifest name of an entry of another kind:
    ``Annotated[Name, RefTo("team")]``. The manifest checks that such an entry is written
    (`docform.manifest.references`); validation and the schema ignore the mark."""

    kind: str


TeamName = Annotated[Name, RefTo("team")]
MemberEmail = Annotated[Email, RefTo("member")]
CollectionName = Annotated[Name, RefTo("collection")]
SpaceName = Annotated[Name, RefTo("space")]
SiteName = Annotated[Name, RefTo("site")]

ROLES = ("admin", "create", "edit", "review", "comment", "read")
Role = Literal["admin", "create", "edit", "review", "comment", "read"]
RoleOrGuest = Literal["admin", "create", "edit", "review", "comment", "read", "guest"]
Level = Literal["admin", "create", "edit", "review", "comment", "read", "guest", "inherit"]
TeamRole = Literal["owner", "member"]
Language = Literal[
    "en", "fr", "de", "es", "it", "pt", "pt-br", "ru", "ja", "zh", "zh-tw", "yue", "ko", "ar",
    "hi", "nl", "pl", "tr", "sv", "no", "da", "fi", "el", "cs", "hu", "ro", "th", "vi", "id",
    "ms", "he", "uk", "sk", "bg", "hr", "lt", "lv", "et", "sl",
]  # fmt: skip
SiteVisibility = Literal["public", "unlisted", "share-link", "visitor-auth"]
SiteType = Literal["basic", "premium", "ultimate", "sponsored", "legacy-basic", "legacy-premium"]


def role_value(role: str | None) -> str | None:
    """The API value of a manifest role or level: ``guest`` is the API's ``null``."""
    return None if role == "guest" else role


def _check_url(value: str) -> str:
    if not URL_PATTERN.match(value):
        raise ValueError("must be an http:// or https:// URL")
    return value


Url = Annotated[str, Field(max_length=MAX_URL), AfterValidator(_check_url)]


class Secret:
    """A secret-bearing value: the reference as written and the value it resolved to.

    ``reference`` is ``${env:NAME}`` (possibly inside a longer string), ``{"file": PATH}`` or
    the literal itself. Saved plans keep the reference and resolve it again at apply time;
    ``repr`` and ``str`` never show the value.
    """

    __slots__ = ("reference", "value")

    def __init__(self, reference: str | dict[str, str], value: str) -> None:
        self.reference = reference
        self.value = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Secret):
            return NotImplemented
        return (self.reference, self.value) == (other.reference, other.value)

    def __hash__(self) -> int:
        return hash((str(self.reference), self.value))

    @classmethod
    def literal(cls, value: str) -> Secret:
        return cls(reference=value, value=value)

    @property
    def is_literal(self) -> bool:
        return isinstance(self.reference, str) and "${env:" not in self.reference

    def describe(self) -> str:
        """The reference, safe to print (a literal is shown as ``<literal>``)."""
        if isinstance(self.reference, dict):
            return f"{{file: {self.reference.get('file')}}}"
        return "<literal>" if self.is_literal else self.reference

    def __repr__(self) -> str:
        return f"Secret({self.describe()})"

    def __str__(self) -> str:
        return self.describe()

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            _to_secret, serialization=core_schema.plain_serializer_function_ser_schema(lambda s: s)
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {
            "anyOf": [
                {"type": "string", "description": "The value, or ${env:NAME} to read it."},
                {
                    "type": "object",
                    "properties": {"file": {"type": "string"}},
                    "required": ["file"],
                    "additionalProperties": False,
                    "description": "A file relative to the manifest directory.",
                },
            ]
        }


def _to_secret(value: Any) -> Secret:
    if isinstance(value, Secret):
        return value
    if isinstance(value, str):
        return Secret.literal(value)
    raise ValueError("must be a string, ${env:NAME} or {file: PATH}")


def secret_check(max_length: int, check: Callable[[str], Any] | None = None) -> AfterValidator:
    """Limits applied to a secret's resolved value; messages never quote the value."""

    def validate(secret: Secret) -> Secret:
        if len(secret.value) > max_length:
            raise ValueError(f"must be at most {max_length} characters")
        if check is not None:
            check(secret.value)
        return secret

    return AfterValidator(validate)


SecretUrl = Annotated[Secret, secret_check(MAX_URL, _check_url)]

MARKER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
#: A date or word whose change asks for something once (a new key, secrets sent again).
Marker = Annotated[str, Field(pattern=f"^{MARKER.pattern}$")]


RULES_WITH_USERS = (
    "require_specific_reviewers",
    "require_one_of_specific_reviewers",
    "allow_bypass",
)
MergeRuleName = Literal[
    "require_specific_reviewers", "require_one_of_specific_reviewers", "allow_bypass",
    "require_at_least_one_review", "require_at_least_one_approved_review",
    "require_all_reviews_approved", "require_up_to_date_change_request",
    "require_change_request_subject", "require_change_request_description",
    "require_author_to_merge", "custom",
]  # fmt: skip


#: Merge rules as the organization's and a space's answers show them.
MERGE_RULES_FIELDS = ("type", "rules[]")


class MergeRule(ManifestModel):
    """One review rule; ``users`` are member emails (docform maps them to user ids)."""

    rule: MergeRuleName
    users: list[MemberEmail] | None = None
    expression: str | None = Field(None, min_length=1)
    message: str | None = None

    @model_validator(mode="after")
    def _check_shape(self) -> MergeRule:
        if self.rule in RULES_WITH_USERS and self.users is None:
            raise ValueError(f"rule '{self.rule}' needs a list of users")
        if self.rule not in RULES_WITH_USERS and self.users is not None:
            raise ValueError(f"rule '{self.rule}' takes no users")
        if (self.rule == "custom") != (self.expression is not None):
            raise ValueError("an expression is needed by, and only by, a custom rule")
        if self.message is not None and self.rule != "custom":
            raise ValueError("only a custom rule takes a message")
        return self


class MergeRules(ManifestModel):
    """Review rules of an organization: ``{type: rules, rules: [...]}`` or ``{type: none}``."""

    type: Literal["rules", "none"]
    rules: list[MergeRule] | None = None

    @model_validator(mode="after")
    def _check_shape(self) -> MergeRules:
        if self.type == "rules" and self.rules is None:
            raise ValueError("type 'rules' needs a list of rules")
        if self.type != "rules" and self.rules is not None:
            raise ValueError(f"type '{self.type}' takes no rules")
        return self


class SpaceMergeRules(MergeRules):
    """Review rules of a space, which may also ``inherit`` those of the organization."""

    type: Literal["inherit", "rules", "none"]  # type: ignore[assignment]
