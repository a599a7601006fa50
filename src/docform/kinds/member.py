"""Organization members (``members:``), keyed by email: ``email: role`` or ``{role, sso}``.

The role ``guest`` is the API's ``null`` role. A member listed here is invited when missing.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from docform.kinds.base import Entry
from docform.kinds.fields import RoleOrGuest


class MemberEntry(Entry):
    """One member; the manifest key is the member's email."""

    kind = "member"
    key_is_unique = True
    key_label = "email"

    role: RoleOrGuest = Field(description="Organization role; guest is the API's null role.")
    sso: bool | None = Field(None, description="Sign-in through SSO only.")

    @model_validator(mode="before")
    @classmethod
    def _expand_shorthand(cls, value: Any) -> Any:
        # `alice@acme.test: admin` is the common case; it means {role: admin}.
        return {"role": value} if isinstance(value, str) else value

    @property
    def email(self) -> str:
        return self.name

    def natural_key(self) -> str:
        # NOTE: users sign in with their email and the service lower-cases it, so a member is
        # the same whatever the case written.
        return self.name.lower()
