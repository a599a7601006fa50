"""SAML single sign-on providers (``saml:``), keyed by label.

``certificate`` is secret-bearing: usually ``{file: certs/okta.pem}`` or ``${env:NAME}``.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from docform.kinds.base import Entry
from docform.kinds.fields import Name, RoleOrGuest, Secret, Url, secret_check


class SamlEntry(Entry):
    """One SAML provider."""

    kind = "saml"
    key_label = "label"

    label: str = Field(min_length=1, max_length=30)
    entityID: str | None = Field(None, min_length=1, max_length=1024)
    ssoURL: Url | None = None
    certificate: Annotated[Secret, secret_check(10000)] | None = Field(
        None, description="PEM text, ${env:NAME} or {file: PATH}."
    )
    defaultTeam: Name | None = Field(None, description="Manifest name of a team.")
    defaultRole: RoleOrGuest | None = None

    def natural_key(self) -> str:
        # NOTE: providers have nothing else a person recognises; labels are not unique (pin ids).
        return self.label
