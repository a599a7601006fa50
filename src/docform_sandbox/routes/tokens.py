"""Operations the API takes from a user's token (or an OAuth token) only: an integration's
token (a seed's ``kind: integration``) is answered 401 there, as the service answers a token of
a kind an operation does not accept. Every other operation accepts every bearer kind.

The sandbox's admin tokens (``sandbox serve --token``, the in-process sandbox's) belong to no
user but are accepted everywhere: they stand for whatever token a test needs.
"""

from __future__ import annotations

from docform_sandbox.http import ApiError, Caller

_ORG = "/orgs/{organizationId}"
_SITE = _ORG + "/sites/{siteId}"
_INSTALLATION = "/integrations/{integrationName}/installations/{installationId}"
_GIT = "/git/installations/{gitInstallationId}"
#: (method, path) of every operation of the sandbox an integration's token may not call.
USER_ONLY: frozenset[tuple[str, str]] = frozenset(
    {
        # Sites: list, structure and customization reads, writes, publishing (site:*).
        ("GET", _ORG + "/sites"),
        ("POST", _ORG + "/sites"),
        ("PATCH", _SITE),
        ("DELETE", _SITE),
        ("GET", _SITE + "/structure"),
        ("PATCH", _SITE + "/structure/sort"),
        ("GET", _SITE + "/customization"),
        ("PUT", _SITE + "/customization"),
        ("GET", _SITE + "/site-spaces/{siteSpaceId}/customization"),
        ("PATCH", _SITE + "/site-spaces/{siteSpaceId}/customization"),
        ("DELETE", _SITE + "/site-spaces/{siteSpaceId}/customization"),
        ("POST", _SITE + "/external-links"),
        ("PATCH", _SITE + "/external-links/{siteExternalLinkId}"),
        ("DELETE", _SITE + "/external-links/{siteExternalLinkId}"),
        ("POST", _SITE + "/publish"),
        ("POST", _SITE + "/unpublish"),
        # Visitor sign-in and share links (site:auth:*).
        ("GET", _SITE + "/publishing/auth"),
        ("PATCH", _SITE + "/publishing/auth"),
        ("POST", _SITE + "/publishing/auth/regenerate"),
        ("GET", _SITE + "/share-links"),
        ("POST", _SITE + "/share-links"),
        ("PATCH", _SITE + "/share-links/{shareLinkId}"),
        ("DELETE", _SITE + "/share-links/{shareLinkId}"),
        # Link invites (organization:members:*).
        ("GET", _ORG + "/link-invites"),
        ("POST", _ORG + "/link-invites"),
        ("GET", _ORG + "/link-invites/{inviteId}"),
        ("PATCH", _ORG + "/link-invites/{inviteId}"),
        ("DELETE", _ORG + "/link-invites/{inviteId}"),
        # A space's Git info; installing on the organization and its status (user only there).
        ("GET", "/spaces/{spaceId}/git/info"),
        ("POST", "/integrations/{integrationName}/installations"),
        ("GET", _ORG + "/integrations/{integrationName}/installation_status"),
        ("DELETE", _INSTALLATION),
        # Custom fonts (an internal user's token), custom hostnames (an internal or staff
        # user's) and the translation glossary: a user's token only, no OAuth either.
        ("GET", _ORG + "/fonts"),
        ("PUT", _ORG + "/fonts"),
        ("GET", _ORG + "/fonts/{fontId}"),
        ("POST", _ORG + "/fonts/{fontId}"),
        ("DELETE", _ORG + "/fonts/{fontId}"),
        ("GET", "/custom-hostnames/{hostname}"),
        ("PATCH", "/custom-hostnames/{hostname}"),
        ("DELETE", "/custom-hostnames/{hostname}"),
        ("GET", _ORG + "/translations-glossary"),
        ("PUT", _ORG + "/translations-glossary"),
        ("GET", _ORG + "/translations-glossary/{glossaryEntryId}"),
        # Audit and Git Sync: a user's token only, no OAuth either.
        ("GET", _ORG + "/audit-events"),
        ("GET", _ORG + "/audit-events/{auditEventId}"),
        ("GET", _ORG + "/audit-event-actions"),
        ("POST", "/git/installations"),
        ("GET", _GIT),
        ("PATCH", _GIT),
        ("DELETE", _GIT),
        ("GET", _SITE + "/spaces/git/installations"),
    }
)


def require_accepted_kind(method: str, path: str, caller: Caller) -> None:
    """401 for an integration's token where the operation takes a user's token only."""
    if caller.integration and (method, path) in USER_ONLY:
        raise ApiError(
            401, f"{method} {path} accepts a user's token only, not an integration's token"
        )
