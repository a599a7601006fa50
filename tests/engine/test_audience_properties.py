"""Property: whatever the roles, teams, grants, containment and default levels, the audience a
plan predicts is the one the service's aggregate lists show once it is applied, and whatever
the site's visibility, share links, visitor sign-in and the link invites, the ways in it
predicts are those their own routes read back.

Hypothesis draws two states of an organization: the members' roles, a team, collections (one
maybe nested in the other), spaces in them or not, each with a default level (a role, guest,
inherit or left as created) and maybe a grant to the team or to a person; the site's
visibility, share links and visitor sign-in; link invites to the organization or a space.
docform applies the first state and then the second, through the CLI against the sandbox;
every apply reads the aggregate list of each object whose audience it changed, and the objects
that open the ways in it changed, and `planning.apply` fails on any difference from the
prediction. The default run draws a few examples; ``DOCFORM_FUZZ_EXAMPLES`` draws more.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from planning import apply, seeded_sandbox, write_manifests

ROLES = ("admin", "create", "review", "edit", "comment", "read")
LEVELS = st.sampled_from((*ROLES, "guest", "inherit", None))
PEOPLE = ("erin@acme.test", "bob@acme.test")
VISIBILITIES = ("public", "unlisted", "share-link", "visitor-auth")


@st.composite
def organizations(draw: st.DrawFn) -> dict[str, Any]:
    collections: dict[str, Any] = {"outer": {"title": "Outer"}, "inner": {"title": "Inner"}}
    if draw(st.booleans()):
        collections["inner"]["parent"] = "outer"
    spaces: dict[str, Any] = {}
    for i in range(draw(st.integers(1, 3))):
        spaces[f"s{i}"] = {"title": f"Space {i}"}
        collection = draw(st.sampled_from(("outer", "inner", None)))
        if collection is not None:
            spaces[f"s{i}"]["collection"] = collection
    for entry in [*collections.values(), *spaces.values()]:
        level = draw(LEVELS)
        if level is not None:
            entry["defaultLevel"] = level
        # Every entry writes its access (empty: no grants): the grants of one that does not are
        # not read, and docform cannot count what it does not read (docs: "Audience").
        entry["access"] = {}
        if draw(st.integers(0, 3)) == 0:
            entry["access"] = {"teams": {"support": draw(st.sampled_from(ROLES))}}
        elif draw(st.integers(0, 3)) == 0:
            entry["access"] = {"users": {draw(st.sampled_from(PEOPLE)): draw(LEVELS.filter(
                lambda level: level not in (None, "inherit")))}}  # fmt: skip
    team = draw(st.lists(st.sampled_from(PEOPLE), unique=True))
    return {
        "sites": {"docs": draw(sites())},
        "linkInvites": draw(invites()),
        "organization": {"id": "org_acme"},
        "members": {
            "alice@acme.test": "admin",
            **{p: draw(st.sampled_from((*ROLES[1:], "guest"))) for p in PEOPLE},
        },
        "teams": {"support": {"title": "Support", "members": dict.fromkeys(team, "member")}},
        "collections": collections,
        "spaces": spaces,
    }


@st.composite
def invites(draw: st.DrawFn) -> dict[str, Any]:
    """None, or one to join the organization, or one to a space, or both, by role or level."""
    drawn: dict[str, Any] = {}
    if draw(st.booleans()):
        drawn["join"] = {"role": draw(st.sampled_from(("read", "edit")))}
    if draw(st.booleans()):
        drawn["guests"] = {"level": draw(st.sampled_from(("comment", "guest"))), "space": "s0"}
    return drawn


@st.composite
def sites(draw: st.DrawFn) -> dict[str, Any]:
    """The seeded site, with a visibility, share links active or not, and visitor sign-in."""
    site: dict[str, Any] = {"id": "site_docs", "visibility": draw(st.sampled_from(VISIBILITIES))}
    links = draw(st.lists(st.sampled_from(("press", "partners")), unique=True))
    site["shareLinks"] = {name: {"active": draw(st.booleans())} for name in links}
    if site["visibility"] == "visitor-auth" or draw(st.booleans()):
        site["visitorAuth"] = {"backend": "custom", "fallbackURL": "https://id.acme.test/"}
    return site


@settings(
    max_examples=fuzz_examples(3),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(first=organizations(), second=organizations())
def test_the_predicted_audience_is_the_one_the_service_lists(
    first: dict[str, Any], second: dict[str, Any]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sandbox = seeded_sandbox(root)
        for state in (first, second):
            directory = write_manifests(root / "m", yaml.safe_dump(state, sort_keys=False))
            apply(directory, sandbox)
