"""An object deleted by hand in the service is drift, whatever ties its entry to it.

For every kind whose entries can pin an ``id`` (each row below), examples/acme, with a link
invite, an external link, a share link, an agent channel, an integration, a Git Sync and a
custom font added, is applied; one object is deleted through the service's API as a person
would; then, with the entry tied by docform.lock (what apply and export write) or by an ``id:``
pinned in the manifest, `docform drift` exits 2 ("drift", never 1, "error") and its plan brings
the object back (a create, or a restore from the trash) with a note naming the lost id where it
is created anew; once applied under a stale pin, the plan is empty (the lock records the new
object, tried after the pin).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from docform.kind_registry import KIND_CLASSES, declaration_of
from docform.manifest import load_manifest_set
from docform.manifest.edit import ManifestFile
from planning import acme_copy, actions, apply, copy_applied, live_api, run

ORG = "/orgs/org_acme"
DEVDOCS = f"{ORG}/sites/site_devdocs"
SITE_EXTRAS = """\
    externalLinks:
      status: {title: Status, url: "https://status.acme.test/"}
    shareLinks:
      partners: {title: Partners}
    contextConnections:
      api: {label: API, connector: "builtin:api"}
    mcpServers:
      tools: {title: Acme tools, url: "https://mcp.acme.test/sse"}
    channels:
      slack: {type: "builtin:slack"}
"""
EXTRAS = """\
linkInvites:
  readers: {role: read}
integrations:
  analytics: {integration: segment, configuration: {region: eu}}
gitSync:
  handbook: {space: eng-handbook, provider: github, repository: 4242, branch: main}
customFonts:
  acme-sans: {family: Acme Sans, faces: [{weight: 400, storageKey: fonts/acme-sans.woff2}]}
"""


@dataclass(frozen=True)
class Row:
    """One entry, and the API path that deletes its live object (``{id}``: the live id)."""

    address: str
    delete: str
    comes_back_by: str = "create"


ROWS = {
    "member": Row("member.tom.walker@acme.test", f"{ORG}/members/{{id}}"),
    "team": Row("team.mobile", f"{ORG}/teams/{{id}}"),
    "collection": Row("collection.runbooks", "/collections/{id}"),
    "space": Row("space.oncall", "/spaces/{id}", comes_back_by="restore"),
    "site": Row("site.help", f"{ORG}/sites/{{id}}"),
    "section": Row("site.devdocs.section.changelog", f"{DEVDOCS}/sections/{{id}}"),
    "section_group": Row("site.devdocs.sectionGroup.reference", f"{DEVDOCS}/section-groups/{{id}}"),
    "external_link": Row("site.devdocs.externalLink.status", f"{DEVDOCS}/external-links/{{id}}"),
    "site_space": Row("site.help.space.releases", f"{ORG}/sites/site_help/site-spaces/{{id}}"),
    "redirect": Row("site.devdocs.redirect./status", f"{DEVDOCS}/redirects/{{id}}"),
    "share_link": Row("site.devdocs.shareLink.partners", f"{DEVDOCS}/share-links/{{id}}"),
    "context_connection": Row(
        "site.devdocs.contextConnection.api", f"{DEVDOCS}/context-connections/{{id}}"
    ),
    "mcp_server": Row("site.devdocs.mcpServer.tools", f"{DEVDOCS}/mcp-servers/{{id}}"),
    "channel": Row("site.devdocs.channel.slack", f"{DEVDOCS}/channels/{{id}}"),
    "openapi": Row("openapi.platform-api", f"{ORG}/openapi/platform-api"),
    "saml": Row("saml.okta", f"{ORG}/saml/{{id}}"),
    "link_invite": Row("linkInvite.readers", f"{ORG}/link-invites/{{id}}"),
    "integration": Row("integration.analytics", "/integrations/segment/installations/{id}"),
    "git_sync": Row("gitSync.handbook", "/git/installations/{id}"),
    "custom_font": Row("customFont.acme-sans", f"{ORG}/fonts/{{id}}"),
}
# Kinds whose entries may pin an id but that this table leaves to their own tests, and why.
ELSEWHERE = {
    "organization": "never created or deleted: a missing organization stops every command",
    "translation": "docform.lock does not tie it: its source and language are its identity",
    "glossary_entry": "deleted by a batch PUT, not a DELETE: tests/kinds/test_plan_glossary.py "
    "deletes one by hand and drifts",
    "custom_hostname": "the hostname is its id, and only the service's app connects a removed "
    "one again (tests/kinds/test_plan_custom_hostnames.py: drift names who removed it)",
}


def test_the_table_covers_every_kind_whose_entries_can_pin_an_id() -> None:
    pinnable = set()
    for cls in KIND_CLASSES:
        declared = declaration_of(cls)
        holder = declared.section or declared.nested
        if holder is not None and "id" in holder.entry.model_fields:
            pinnable.add(cls.name)
    assert pinnable == set(ROWS) | set(ELSEWHERE)


@pytest.fixture(scope="module")
def applied_once(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    directory, sandbox = acme_copy(tmp_path_factory.mktemp("deleted-by-hand"))
    sites = directory / "sites.yaml"
    text = sites.read_text(encoding="utf-8")
    sites.write_text(text.replace("    redirects:", SITE_EXTRAS + "    redirects:", 1))
    (directory / "extras.yaml").write_text(EXTRAS, encoding="utf-8")
    apply(directory, sandbox, rehearse=False)
    return directory, sandbox


def locked_ids(directory: Path) -> dict[str, str]:
    ids: dict[str, str] = yaml.safe_load((directory / "docform.lock").read_text())["ids"]
    return ids


def live_id(sandbox: Path, row: Row, locked: str) -> str:
    """The id the service knows the object by (a link invite's lock line holds a fingerprint
    of it, never the id itself)."""
    if not row.address.startswith("linkInvite."):
        return locked
    (invite,) = live_api(sandbox, "GET", f"{ORG}/link-invites")["items"]
    return str(invite["id"])


def pin_inline(directory: Path, address: str, pinned: str) -> None:
    """Write ``id: PINNED`` into the entry at ``address`` and drop its lock line, as the
    manifests of an older export held it (a member written ``email: role`` is expanded)."""
    manifests = load_manifest_set(directory)
    (entry,) = [e for e in manifests.entries() if e.address == address]
    edited = ManifestFile(directory / entry.location.file, entry.location.file)
    edited.set_fields(entry.source_path, {"id": pinned}, set(), lambda scalar: "role")
    (directory / entry.location.file).write_text(edited.text(), encoding="utf-8")
    lock = yaml.safe_load((directory / "docform.lock").read_text())
    del lock["ids"][address]
    (directory / "docform.lock").write_text(yaml.safe_dump(lock), encoding="utf-8")


@pytest.mark.parametrize("tie", ["lock", "id"])
@pytest.mark.parametrize("kind", sorted(ROWS))
def test_an_object_deleted_by_hand_is_drift_that_plans_its_return(
    kind: str, tie: str, applied_once: tuple[Path, Path], tmp_path: Path
) -> None:
    row = ROWS[kind]
    directory, sandbox = copy_applied(applied_once, tmp_path)
    locked = locked_ids(directory)[row.address]
    if tie == "id":
        pin_inline(directory, row.address, locked)
    live_api(sandbox, "DELETE", row.delete.format(id=live_id(sandbox, row, locked)))

    drift = run(["drift", directory, "--json"], sandbox)

    assert drift.exit_code == 2, drift.output
    (report,) = json.loads(drift.stdout)["organizations"]
    assert report["status"] == "drift"
    plan = report["plan"]
    assert (row.address, row.comes_back_by) in actions(plan)
    lost = [note for note in plan["notes"] if locked in note and row.address in note]
    assert len(lost) == (1 if row.comes_back_by == "create" else 0), plan["notes"]
    if tie == "id":
        # The stale pin stays; the lock the apply writes ties the entry to the new object, so
        # nothing is created twice (the lock-only tie takes the same path, without the pin).
        apply(directory, sandbox)
        again = run(["plan", directory, "--detailed-exitcode"], sandbox)
        assert again.exit_code == 0, again.output
