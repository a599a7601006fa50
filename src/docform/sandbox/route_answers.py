"""Which object each sandbox route answers on success, keyed ``"METHOD /path"`` like the
routes themselves (the objects are in `answer_schemas`).

`openapi_description` takes each operation's success answer from `ANSWERS`; a test checks that
it covers every route and nothing else.
"""

from __future__ import annotations

from docform.sandbox.answer_schemas import Schema, page, ref

ORG = "/orgs/{organizationId}"
SITE = ORG + "/sites/{siteId}"
SPEC = ORG + "/openapi/{specSlug}"
STRUCTURE_ITEM: Schema = {"anyOf": [ref("SiteSpace"), ref("SiteSection"), ref("SiteSectionGroup")]}


def permission_answers(base: str) -> dict[str, Schema | None]:
    """The content permission routes of a space, a collection or a site under ``base``:
    grants and changes answer no body (204, or 205 for a removal)."""
    return {
        f"POST {base}": None,
        f"GET {base}/teams": page("TeamPermission"),
        f"PATCH {base}/teams/{{teamId}}": None,
        f"DELETE {base}/teams/{{teamId}}": None,
        f"GET {base}/users": page("UserPermission"),
        f"PATCH {base}/users/{{userId}}": None,
        f"DELETE {base}/users/{{userId}}": None,
        f"GET {base}/aggregate": page("UserPermission"),
    }


#: The success answer of each route, by ``"METHOD /path"``; None: no body (204 or 205).
ANSWERS: dict[str, Schema | None] = {
    "GET /user": ref("User"),
    "GET /orgs": page("Organization"),
    f"GET {ORG}": ref("Organization"),
    f"PATCH {ORG}": ref("Organization"),
    f"GET {ORG}/members": page("Member"),
    f"GET {ORG}/members/{{userId}}": ref("Member"),
    f"PATCH {ORG}/members/{{userId}}": ref("Member"),
    f"DELETE {ORG}/members/{{userId}}": None,
    f"POST {ORG}/members/{{userId}}/sso": ref("Member"),
    f"POST {ORG}/ping": ref("Ping"),
    f"POST {ORG}/invites": ref("Invited"),
    f"GET {ORG}/teams": page("Team"),
    f"PUT {ORG}/teams": ref("Team"),
    f"GET {ORG}/teams/{{teamId}}": ref("Team"),
    f"PATCH {ORG}/teams/{{teamId}}": ref("Team"),
    f"DELETE {ORG}/teams/{{teamId}}": None,
    f"GET {ORG}/teams/{{teamId}}/members": page("TeamMember"),
    f"PUT {ORG}/teams/{{teamId}}/members": None,
    f"PUT {ORG}/teams/{{teamId}}/members/{{userId}}": None,
    f"DELETE {ORG}/teams/{{teamId}}/members/{{userId}}": None,
    f"GET {ORG}/collections": page("Collection"),
    f"POST {ORG}/collections": ref("Collection"),
    "GET /collections/{collectionId}": ref("Collection"),
    "PATCH /collections/{collectionId}": ref("Collection"),
    "DELETE /collections/{collectionId}": None,
    "POST /collections/{collectionId}/move": ref("Collection"),
    f"GET {ORG}/spaces": page("Space"),
    "GET /collections/{collectionId}/spaces": page("Space"),
    f"POST {ORG}/spaces": ref("Space"),
    "GET /spaces/{spaceId}": ref("Space"),
    "PATCH /spaces/{spaceId}": ref("Space"),
    "DELETE /spaces/{spaceId}": None,
    "POST /spaces/{spaceId}/restore": ref("Space"),
    "POST /spaces/{spaceId}/move": ref("Space"),
    f"GET {ORG}/sites": page("Site"),
    f"POST {ORG}/sites": ref("Site"),
    f"GET {SITE}": ref("Site"),
    f"PATCH {SITE}": ref("Site"),
    f"DELETE {SITE}": None,
    f"POST {SITE}/publish": ref("Site"),
    f"POST {SITE}/unpublish": ref("Site"),
    f"GET {SITE}/structure": ref("SiteStructure"),
    f"PATCH {SITE}/structure/sort": STRUCTURE_ITEM,
    f"GET {SITE}/section-groups": page("SiteSectionGroup"),
    f"POST {SITE}/section-groups": ref("SiteSectionGroup"),
    f"PATCH {SITE}/section-groups/{{siteSectionGroupId}}": ref("SiteSectionGroup"),
    f"DELETE {SITE}/section-groups/{{siteSectionGroupId}}": None,
    f"POST {SITE}/section-groups/{{siteSectionGroupId}}/sections": ref("SiteSectionGroup"),
    f"POST {SITE}/section-groups/{{siteSectionGroupId}}/move": ref("SiteSectionGroup"),
    f"GET {SITE}/sections": page("SiteSection"),
    f"POST {SITE}/sections": ref("SiteSection"),
    f"PATCH {SITE}/sections/{{siteSectionId}}": ref("SiteSection"),
    f"DELETE {SITE}/sections/{{siteSectionId}}": None,
    f"POST {SITE}/sections/{{siteSectionId}}/move": ref("SiteSection"),
    f"GET {SITE}/site-spaces": page("SiteSpace"),
    f"POST {SITE}/site-spaces": ref("SiteSpace"),
    f"PATCH {SITE}/site-spaces/{{siteSpaceId}}": ref("SiteSpace"),
    f"DELETE {SITE}/site-spaces/{{siteSpaceId}}": None,
    f"POST {SITE}/site-spaces/{{siteSpaceId}}/move": ref("SiteSpace"),
    f"GET {SITE}/redirects": page("SiteRedirect"),
    f"POST {SITE}/redirects": ref("SiteRedirect"),
    f"PATCH {SITE}/redirects/{{siteRedirectId}}": ref("SiteRedirect"),
    f"DELETE {SITE}/redirects/{{siteRedirectId}}": None,
    **permission_answers("/spaces/{spaceId}/permissions"),
    **permission_answers("/collections/{collectionId}/permissions"),
    **permission_answers(f"{SITE}/permissions"),
    f"GET {ORG}/openapi": page("OpenAPISpec"),
    f"POST {ORG}/openapi": ref("OpenAPISpec"),
    f"GET {SPEC}": ref("OpenAPISpec"),
    f"PUT {SPEC}": ref("OpenAPISpec"),
    f"PATCH {SPEC}": ref("OpenAPISpec"),
    f"DELETE {SPEC}": None,
    f"GET {SPEC}/versions": page("OpenAPISpecVersion"),
    f"GET {SPEC}/versions/latest": ref("OpenAPISpecVersion"),
    f"GET {SPEC}/versions/latest/content": ref("OpenAPISpecContent"),
    f"GET {SPEC}/versions/{{versionId}}": ref("OpenAPISpecVersion"),
    f"GET {SPEC}/versions/{{versionId}}/content": ref("OpenAPISpecContent"),
    f"GET {ORG}/saml": page("SAMLProvider"),
    f"POST {ORG}/saml": ref("SAMLProvider"),
    f"GET {ORG}/saml/{{samlProviderId}}": ref("SAMLProvider"),
    f"PATCH {ORG}/saml/{{samlProviderId}}": ref("SAMLProvider"),
    f"DELETE {ORG}/saml/{{samlProviderId}}": None,
    f"GET {ORG}/sso": ref("SSOEntries"),
}
