"""The emulated API, one module per resource family; each defines `Endpoint`s."""

from docform.sandbox.http import Endpoint, collect
from docform.sandbox.routes import (
    collections,
    members,
    openapi,
    orgs,
    permissions,
    redirects,
    saml,
    site_publishing,
    site_spaces,
    site_structure,
    sites,
    spaces,
    teams,
    user,
)

ENDPOINTS: list[Endpoint] = [
    ep
    for module in (
        orgs,
        members,
        teams,
        collections,
        spaces,
        sites,
        site_structure,
        site_spaces,
        openapi,
        saml,
        user,
        permissions,
        site_publishing,
        redirects,
    )
    for ep in collect(vars(module))
]
