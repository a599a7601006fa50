"""Teams (``teams:``) and their memberships, keyed by title.

``members`` maps member emails to a team role; every email must be listed under ``members:``
too, since only organization members can join a team.
"""

from __future__ import annotations

from pydantic import Field

from docform.kinds.base import Entry
from docform.kinds.fields import Email, TeamRole


class TeamEntry(Entry):
    """One team; ``members`` (when written) is the complete list of its members."""

    kind = "team"
    key_label = "title"

    title: str = Field(min_length=1, max_length=64)
    members: dict[Email, TeamRole] | None = Field(
        None, description="Member email -> owner (manages the team) or member."
    )

    def natural_key(self) -> str:
        # NOTE: the API finds teams by title only; two teams may share one (then pin ids).
        return self.title
