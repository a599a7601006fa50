"""kinds/member.py: an invite to an email outside the organization's ``emailDomains`` is a plan
warning at the entry's file:line, in every rendering of the plan; inside them, none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planning import run, write_manifests

MEMBERS = """\
organization: {{id: org_acme{domains}}}
members:
  alice@acme.test: admin
  {invited}: read
"""


def warnings_of(manifests: Path, sandbox: Path) -> list[str]:
    result = run(["plan", manifests, "--json"], sandbox)
    assert result.exit_code == 0, result.output
    return list(json.loads(result.stdout)["warnings"])


def test_an_invite_outside_the_organizations_domains_is_a_located_warning(
    sandbox: Path, tmp_path: Path
) -> None:
    manifests = write_manifests(
        tmp_path / "m", MEMBERS.format(domains="", invited="mallory@acme-test.example")
    )
    expected = (
        "main.yaml:4:3: mallory@acme-test.example is invited, but its domain is not one of "
        "the organization's emailDomains (acme.test): check that it is the person meant and "
        "not a look-alike address, or add the domain to organization.emailDomains"
    )

    assert warnings_of(manifests, sandbox) == [expected]
    text = run(["plan", manifests], sandbox)
    assert f"Warning: {expected}\n" in text.stdout
    markdown = run(["plan", manifests, "--markdown"], sandbox)
    assert "> - main.yaml:4:3: mallory@acme-test.example is invited" in markdown.stdout


def test_the_manifests_domains_count_over_the_live_ones(sandbox: Path, tmp_path: Path) -> None:
    domains = ", emailDomains: [acme.test, Partner.test]"
    manifests = write_manifests(
        tmp_path / "m", MEMBERS.format(domains=domains, invited="pat@partner.TEST")
    )
    assert warnings_of(manifests, sandbox) == []


def test_a_member_already_in_the_organization_is_not_flagged(sandbox: Path, tmp_path: Path) -> None:
    """Only invites are flagged: a member outside the domains who is already in is not news."""
    domains = ", emailDomains: [other.test]"
    manifests = write_manifests(
        tmp_path / "m", MEMBERS.format(domains=domains, invited="erin@acme.test")
    )
    assert warnings_of(manifests, sandbox) == []


@pytest.mark.parametrize(
    "domain",
    ["ACME.test", "acme.tesst", "acme-test.test", "acme.test.evil", "acmee.test", "sub.acme.test"],
)
def test_an_invite_is_flagged_unless_its_domain_is_listed_exactly(
    sandbox: Path, tmp_path: Path, domain: str
) -> None:
    manifests = write_manifests(tmp_path / "m", MEMBERS.format(domains="", invited=f"new@{domain}"))
    flagged = bool(warnings_of(manifests, sandbox))
    assert flagged == (domain.lower() != "acme.test")
