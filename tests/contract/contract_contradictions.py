"""Where the service's definition contradicts itself, and what the check lets through there.

Each entry is a place where one operation of the definition accepts a value that another's
answer may not carry, so no faithful emulator can answer inside the definition. The sandbox
answers what the service was asked to store; the check lets exactly that value through at
exactly those places, and nothing else (docs/service.md, "Where the definition contradicts
itself").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from contract_definition import Mismatch


@dataclass(frozen=True)
class Contradiction:
    name: str
    operations: re.Pattern[str]
    path: re.Pattern[str]
    message: re.Pattern[str]

    def covers(self, mismatch: Mismatch) -> bool:
        return (
            mismatch.where == "answer"
            and bool(self.operations.fullmatch(mismatch.operation))
            and bool(self.path.fullmatch(mismatch.path))
            and bool(self.message.match(mismatch.message))
        )


CONTRADICTIONS = (
    # The grant operations take MemberRoleOrGuest (null for a guest), while the grant lists
    # answer MemberRole, which has no null.
    Contradiction(
        "a guest's grant is listed with the null role it was granted",
        re.compile(r"GET /(spaces|collections)/\{\w+\}/permissions/(users|aggregate)"),
        re.compile(r"\$\.items\[\d+\]\.permission"),
        re.compile(r"None is not "),
    ),
    # CreateSAMLProvider needs only a label, while every SAMLProvider answer requires an
    # ssoURL in the uri format: a provider not yet set up has none to give.
    Contradiction(
        "a SAML provider created with a label only has no sign-on URL yet",
        re.compile(r"(GET|POST|PATCH) /orgs/\{organizationId\}/saml(/\{samlProviderId\})?"),
        re.compile(r"\$(\.items\[\d+\])?\.ssoURL"),
        re.compile(r"'' is not a 'uri'"),
    ),
    # The link-invite list answers OrganizationInviteLink (an organization invite: a role),
    # while the single GET, POST and PATCH answer any of the three forms of an invite, a space
    # or a collection invite naming its target and level. The list holds every invite the
    # single GET can read, so its space and collection invites carry the fields of their form
    # (found by the sandbox's tests, which look for fields the definition does not name).
    Contradiction(
        "a space or collection invite is listed with its target and level",
        re.compile(r"GET /orgs/\{\w+\}/link-invites"),
        re.compile(r"\$\.items\[\d+\]\.(level|space|collection)"),
        re.compile(r"a field the definition does not name"),
    ),
)


def contradiction_of(mismatch: Mismatch) -> Contradiction | None:
    return next((c for c in CONTRADICTIONS if c.covers(mismatch)), None)
