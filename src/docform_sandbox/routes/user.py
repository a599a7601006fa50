"""The caller: ``GET /user`` answers the user the request's token belongs to.

A token from a seed file (``tokens:``) belongs to its user. A token given to ``sandbox serve
--token`` (and any token of the in-process sandbox) belongs to no user: it acts as an admin of
every organization, and ``GET /user`` answers 404 for it, as the service does for a token that
is not a user's (an integration's). ``POST /orgs/{id}/ping`` keeps working for such a token.
"""

from __future__ import annotations

from typing import Any

from docform_sandbox.http import ApiError, Ctx, endpoint
from docform_sandbox.routes.members import render_user


@endpoint("GET", "/user")
def get_own_user(ctx: Ctx) -> dict[str, Any]:
    """The user the token belongs to."""
    user_id = ctx.caller.user_id
    user = ctx.store.get("user", user_id) if user_id is not None else None
    if user is None:
        raise ApiError(
            404,
            "the bearer token belongs to no user (an admin or integration token): "
            "GET /user needs a user's own token",
        )
    return render_user(user)
