"""What a seed and the routes both store or check: user and member documents, roles, redirect
sources.

Apart from `docform_sandbox.seed` so that the routes import no seed: the seed file's pydantic
models are built only by seeding (``docform sandbox seed``, ``--seed``), not by every sandbox.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from docform_sandbox.access import member_key
from docform_sandbox.http import ROLES

Role = Literal["admin", "create", "review", "edit", "comment", "read"]
# A redirect source, as the definition has it (SiteRedirectSourcePath): "/" then one or more
# segments of unreserved characters or %XX escapes between single slashes, no trailing slash,
# optionally ending in "*" or "/*".
_SEGMENT = r"(?:[A-Za-z0-9._~+-]|%[0-9A-Fa-f]{2})+"
REDIRECT_SOURCE = re.compile(rf"/{_SEGMENT}(?:/{_SEGMENT})*(?:/\*|\*)?")
MAX_REDIRECT_SOURCE = 512


def user_document(user_id: str, email: str | None, display_name: str | None) -> dict[str, Any]:
    doc = {"id": user_id}
    if email is not None:
        doc["email"] = email
    doc["displayName"] = display_name or (email.split("@", 1)[0] if email else user_id)
    doc["photoURL"] = f"https://avatars.sandbox.test/{user_id}.png"
    return doc


def member_document(
    org_id: str, user_id: str, role: str | None, now: str, *, sso: bool = False
) -> dict[str, Any]:
    assert role is None or role in ROLES
    return {
        "id": member_key(org_id, user_id),
        "organization": org_id,
        "user": user_id,
        "role": role,
        "disabled": False,
        "joinedAt": now,
        "lastSeenAt": now,
        "sso": sso,
    }
