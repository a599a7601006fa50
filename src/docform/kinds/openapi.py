"""OpenAPI specifications (``openapi:``), keyed by slug.

``source.url`` is secret-bearing: it may embed credentials, so it may be ``${env:NAME}``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from docform.kinds.base import Entry, ManifestModel
from docform.kinds.fields import SLUG_PATTERN, SecretUrl


class OpenApiSource(ManifestModel):
    """Where the service fetches the specification from."""

    url: SecretUrl = Field(description="http(s) URL; may be ${env:NAME}.")


class OpenApiEntry(Entry):
    """One OpenAPI specification."""

    kind = "openapi"
    key_is_unique = True
    key_label = "slug"

    slug: str = Field(min_length=1, max_length=100, pattern=SLUG_PATTERN)
    source: OpenApiSource
    visibility: Literal["private", "public"] | None = None

    def natural_key(self) -> str:
        # NOTE: the slug is the spec's address in the API (/openapi/{specSlug}): unique.
        return self.slug
