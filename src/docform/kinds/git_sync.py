"""Git Sync of a space or a site (``gitSync:``), keyed by what it syncs.

The service has no list of every Git Sync installation. docform finds them with the fewest
requests its lists allow: a site that says it is synced (its ``gitSync``) lists its own
installation and its spaces' in one request; a space that says it is synced and is not in such
a list is read by the installation id the space list gives (or, without one, through the
space's Git info). Nothing is read for the others.
The service takes Git Sync calls from a user's token only: with another kind of token the kind
is not planned, with why (`docform.engine.token_kinds`), and the rest of the plan is made. An
installation waiting for an authorization with its provider is set aside with a note saying
what to do.

``priority: git`` imports the repository's branch over the content in the service: turning it
on (or creating a sync with it) is a rail, as content written since the last sync would be
lost. A synced site takes its structure from the repository's configuration file, so planning
its sections and site spaces too draws a warning.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field, model_validator

from docform.engine.capabilities import HasRails, SetsAside, WarnsAcrossKinds
from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.objects import Matching
from docform.engine.plan import Call, Change, Violation
from docform.export.model import EnvValue, Exported, LiveRef
from docform.kind_framework import configuration
from docform.kind_framework.configuration import ComparesConcealed
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_framework.planning import entry_desired, secret
from docform.kind_framework.rest import created, id_in_path
from docform.model.entry import Entry
from docform.model.fields import Marker, Secret, SiteName, SpaceName

#: The service's own word for its side as a sync's priority, as the API's definition names it
#: (``GitSyncInstallationPriority``). Manifests write ``priority: service``: docform's word for
#: the service's side, which the calls translate (docs/service.md).
SERVICE_PRIORITY = "gitbook"
BRANCH_PREFIX = "refs/heads/"
SETUP = (
    "projectDirectory",
    "commitMessageTemplate",
    "previewExternalBranches",
    "agentInstructions",
)
#: Kinds of a site's structure (the items of its structure tree and their order), which a
#: synced site's repository configuration sets.
STRUCTURE_KINDS = ("section", "section_group", "site_space", "external_link")
UNAUTHENTICATED = "unauthenticated"
GIT_SYNC_FIELDS = ("id", "provider", "target.type", "status", "providerConfiguration", "priority")


class GitSyncEntry(Entry):
    """One space or site synced with a branch of a Git repository."""

    kind = "git_sync"
    key_is_unique = True
    key_label = "space or site"

    space: SpaceName | None = Field(None, description="Manifest name of the space synced.")
    site: SiteName | None = Field(None, description="Manifest name of the site synced.")
    provider: Literal["github", "gitlab"]
    repository: int | None = Field(None, description="GitHub repository id, GitLab project id.")
    branch: str | None = Field(None, min_length=1, description="Branch name (or refs/heads/...).")
    projectDirectory: str | None = Field(None, description="Subdirectory of a monorepo.")
    commitMessageTemplate: str | None = None
    previewExternalBranches: bool | None = None
    agentInstructions: list[Literal["agents", "claude"]] | None = None
    priority: Literal["git", "service"] | None = Field(
        None, description="Which side wins: git imports the branch, service exports to it."
    )
    accessToken: Secret | None = Field(None, description="GitLab only: ${env:NAME} or {file}.")
    customInstanceURL: str | None = Field(None, description="GitLab only: a self-hosted GitLab.")
    rotate: Marker | None = Field(
        None,
        description="A date or word: a new one sends the access token again (once), from the "
        "same source.",
    )

    @model_validator(mode="after")
    def _one_target(self) -> GitSyncEntry:
        if (self.space is None) == (self.site is None):
            raise ValueError("name either the space or the site it syncs")
        if self.provider == "github" and (self.accessToken or self.customInstanceURL):
            raise ValueError("accessToken and customInstanceURL are for gitlab only")
        if self.accessToken is not None and self.accessToken.is_literal:
            raise ValueError(
                "accessToken is a secret, written in plain text: write it as ${env:NAME} or "
                "{file: PATH}, and keep the value out of the repository"
            )
        return self

    def natural_key(self) -> tuple[str, str]:
        # NOTE: the service syncs a space or a site with one repository at most.
        return ("space", self.space) if self.space else ("site", str(self.site))

    @property
    def target(self) -> tuple[str, str]:
        return self.natural_key()


class GitSyncKind(Kind, ComparesConcealed, WarnsAcrossKinds, HasRails, SetsAside):
    """Git Sync installations: POST makes one for a target, PATCH sets it up, DELETE ends it."""

    concealed_fields = frozenset({"accessToken"})
    name = "git_sync"
    plural = "Git Sync installations"
    prune_setting = "gitSync"
    declaration = Declaration(
        position=157,
        section=Section(GitSyncEntry, name="gitSync", noun="Git Sync"),
        export_file="git-sync.yaml",
        reads=Reads(
            fields={
                "/git/installations/*": GIT_SYNC_FIELDS,
                "/spaces/*/git/info": ("installationId",),
                "/orgs/*/sites/*/spaces/git/installations": GIT_SYNC_FIELDS,
            },
            list_names=("installations", "sites", "spaces"),
        ),
    )
    references = ("space", "site")
    read_after = ("space", "site", "collection", "member")
    renamable = False

    # -- reading ------------------------------------------------------------------------------

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        synced_sites = [s for s in reader.live("site") if s.get("gitSync")]
        lists = await asyncio.gather(*(self._site_list(reader, s) for s in synced_sites))
        found = [item for items in lists for item in items]
        covered = {_target_id(item) for item in found}
        spaces = [s for s in reader.live("space") if s.get("gitSync") and s["id"] not in covered]
        looked_up = await asyncio.gather(*(self._space_sync(reader, s) for s in spaces))
        return found + [item for item in looked_up if item is not None]

    async def _site_list(self, reader: LiveReader, site: Mapping[str, Any]) -> list[dict[str, Any]]:
        path = f"/orgs/{self.org_id}/sites/{site['id']}/spaces/git/installations"
        # One answer, not a paged list: the operation takes no paging parameters.
        answer = await reader.get_or_none(self.name, path)
        return list((answer or {}).get("items") or [])

    async def _space_sync(
        self, reader: LiveReader, space: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        """The installation syncing ``space``: its id from the space's ``gitSync`` when the
        list gave it, else from the space's Git info (404: not synced after all)."""
        installation = space["gitSync"].get("installationId")
        if not installation:
            path = f"/spaces/{space['id']}/git/info"
            info = await reader.get_or_none(self.name, path)
            if info is None:
                return None
            installation = info["installationId"]
        path = f"/git/installations/{installation}"
        return await reader.get_or_none(self.name, path)

    # -- manifest and live side ---------------------------------------------------------------

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [self._desired(e) for e in manifests.section("gitSync").values()]

    def _desired(self, e: GitSyncEntry) -> Desired:
        fields = e.managed()
        target, name = e.target
        for key in ("space", "site", "accessToken", "rotate"):
            fields.pop(key, None)
        if e.branch is not None:
            fields["branch"] = e.branch.removeprefix(BRANCH_PREFIX)
        if e.accessToken is not None:
            fields["accessToken"] = configuration.wanted({"t": e.accessToken})["t"]
        what = Ref(f"{target}.{name}")
        desired = entry_desired(
            e,
            fields,
            what,
            scope=(target,),
            requires=frozenset({what.address}),
            sensitive=frozenset({"accessToken"}),
        )
        if e.accessToken is not None:
            desired.secret_sources = {
                "accessToken": configuration.sent_from(e.accessToken, e.rotate)
            }
        return desired

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed:
        target = raw["target"]["type"]
        what = index.ref(target, _target_id(raw))
        config = raw.get("providerConfiguration") or {}
        branch = config.get("branch")
        fields = {name: raw.get(name) for name in ("provider", *SETUP)}
        fields |= {
            "repository": config.get("repositoryId", config.get("projectId")),
            "branch": branch.removeprefix(BRANCH_PREFIX) if isinstance(branch, str) else None,
            "priority": _priority(raw.get("priority")),
            "accessToken": configuration.live({"t": config.get("accessToken")})["t"],
            "customInstanceURL": config.get("customInstanceURL"),
        }
        return Observed(
            id=raw["id"],
            key=(target, what),
            fields=fields,
            title=f"{target} {_target_id(raw)}",
            raw=raw,
            sensitive=frozenset({"accessToken"}),
            unread=_unread_token(raw),
        )

    def set_aside(self, matching: Matching) -> list[str]:
        """A sync waiting for an authorization with its provider answers 401 to any change:
        its entry is not planned, and the plan says what to do."""
        notes = []
        for pair in list(matching.pairs):
            if pair.observed.raw.get("status") == UNAUTHENTICATED:
                matching.pairs.remove(pair)
                notes.append(
                    f"{pair.desired.address}: not planned: its installation is not authenticated "
                    f"with {pair.observed.raw.get('provider')} (status unauthenticated); "
                    "authorize it in the service's app, then plan again"
                )
        return notes

    # -- calls ---------------------------------------------------------------------------------

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        target, what = desired.key
        id_field = "spaceId" if target == "space" else "siteId"
        on = {"type": target, id_field: resolve(what)}
        body = {"provider": desired.fields["provider"], "target": on}
        path = f"/git/installations/{id_in_path(created(desired.address))}"
        return [
            Call("POST", "/git/installations", body),
            Call("PATCH", path, self._setup(desired, desired.fields)),
        ]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        body = self._setup(change.desired, change.changed)
        return [Call("PATCH", f"/git/installations/{change.observed.id}", body)]

    def _setup(self, desired: Desired, changed: Mapping[str, Any]) -> dict[str, Any]:
        """The PATCH body: the provider and its configuration always (the API requires them),
        and the other settings that change."""
        e: GitSyncEntry = desired.entry
        provider: dict[str, Any] = {}
        if e.repository is not None:
            provider["repositoryId" if e.provider == "github" else "projectId"] = e.repository
        if e.branch is not None:
            provider["branch"] = BRANCH_PREFIX + e.branch.removeprefix(BRANCH_PREFIX)
        if e.accessToken is not None:
            provider["accessToken"] = _secret_value(e.accessToken, desired.address)
        if e.customInstanceURL is not None:
            provider["customInstanceURL"] = e.customInstanceURL
        body: dict[str, Any] = {"provider": e.provider, "providerConfiguration": provider}
        body |= {name: changed[name] for name in SETUP if name in changed}
        if "priority" in changed:
            body["priority"] = "git" if changed["priority"] == "git" else SERVICE_PRIORITY
        return body

    def delete_calls(self, observed: Observed) -> list[Call]:
        return [Call("DELETE", f"/git/installations/{observed.id}")]

    # -- rails and warnings ------------------------------------------------------------------

    def rail_violations(self, matching: Matching, changes: Sequence[Change]) -> list[Violation]:
        return [
            Violation(
                "git-priority",
                f"{c.address_with_key} gives the Git repository priority: the next sync imports "
                "its branch over the content in the service, and what was written there since "
                "the last sync is lost; pass --force to do it",
            )
            for c in changes
            if c.action in ("create", "update")
            and (c.after or {}).get("priority") == "git"
            and (c.before or {}).get("priority") != "git"
        ]

    def warnings_across_kinds(
        self, matchings: Mapping[str, Matching], changes: Sequence[Change]
    ) -> list[str]:
        synced = {
            d.key[1].address: d
            for d in _entries(matchings[self.name])
            if d.key[0] == "site" and isinstance(d.key[1], Ref)
        }
        located = {
            d.address: d.location
            for kind in STRUCTURE_KINDS
            if kind in matchings
            for d in _entries(matchings[kind])
        }
        return [
            f"{located.get(c.address, sync.location)}: {c.address} changes the structure of "
            f"{site}, which {sync.address} syncs ({sync.location}): the repository's "
            "configuration file sets it too, and the next import from Git overwrites it"
            for c in changes
            if c.kind in STRUCTURE_KINDS
            for site, sync in synced.items()
            if c.address.startswith(f"{site}.")
        ]

    # -- export --------------------------------------------------------------------------------

    def export_entry(self, raw: Mapping[str, Any]) -> Exported | None:
        target = raw["target"]["type"]
        observed = self.observe(raw, AddressIndex())
        fields: dict[str, Any] = {"id": raw["id"], target: LiveRef(target, _target_id(raw))}
        for name, value in observed.fields.items():
            if name == "accessToken":
                unread = "accessToken" if observed.unread else None
                if value is not None or unread:
                    fields[name] = EnvValue("ACCESS_TOKEN", unread=unread)
            elif value is not None:
                fields[name] = value
        return Exported(
            "gitSync", self.name, raw["id"], _target_id(raw), fields,
            named_after=(LiveRef(target, _target_id(raw)), ""),
        )  # fmt: skip


def _entries(matching: Matching) -> list[Desired]:
    """The entries of ``matching`` that are in the manifests, matched or to be created."""
    return [*matching.creates, *(p.desired for p in (*matching.pairs, *matching.restores))]


def _unread_token(raw: Mapping[str, Any]) -> frozenset[str]:
    """A GitLab sync's access token, which the service holds and does not answer."""
    config = raw.get("providerConfiguration") or {}
    if raw.get("provider") == "gitlab" and "accessToken" not in config:
        return frozenset({"accessToken"})
    return frozenset()


def _target_id(raw: Mapping[str, Any]) -> str:
    target = raw["target"]
    return str(target.get("spaceId") if target["type"] == "space" else target.get("siteId"))


def _priority(value: Any) -> str | None:
    """The manifest's word for a live priority: the API has two values, ``git`` and the
    service's own word; any other word a later service sends reads as the service's side."""
    if value is None:
        return None
    return "git" if value == "git" else "service"


def _secret_value(value: Secret, address: str) -> Any:
    return value.value if value.is_literal else secret(address, "accessToken")
