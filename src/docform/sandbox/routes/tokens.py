"""Operations the API accepts from a user's token only (Git Sync, uninstalling an integration
from an organization): an integration's token (a seed's ``kind: integration``) is answered
401 there, as the service answers a token of a kind an operation does not accept."""

from __future__ import annotations

from docform.sandbox.http import ApiError, Ctx


def require_user_token(ctx: Ctx, what: str) -> None:
    if ctx.caller.integration:
        raise ApiError(401, f"{what} accepts only a user's token, not an integration's")
