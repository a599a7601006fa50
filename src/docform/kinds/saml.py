"""SAML single sign-on providers (``saml:``), keyed by label.

``certificate`` is secret-bearing: usually ``{file: certs/okta.pem}`` or ``${env:NAME}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, ClassVar

from pydantic import Field

from docform.engine.capabilities import HasRailsAcrossKinds
from docform.engine.field_rules import NullMeans
from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.objects import Matching
from docform.engine.plan import Call, Change
from docform.engine.rails import Violation
from docform.export.model import Exported, FileValue, LiveRef
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_framework.planning import entry_desired, ref, secret
from docform.kind_framework.rest import body_of
from docform.model.entry import Entry
from docform.model.fields import RoleOrGuest, Secret, TeamName, Url, role_value, secret_check


class SamlEntry(Entry):
    """One SAML provider."""

    kind = "saml"
    key_label = "label"
    former_key_fields = ("label",)

    label: str = Field(min_length=1, max_length=30)
    entityID: str | None = Field(None, min_length=1, max_length=1024)
    ssoURL: Url | None = None
    certificate: Annotated[Secret, secret_check(10000)] | None = Field(
        None, description="PEM text, ${env:NAME} or {file: PATH}."
    )
    defaultTeam: TeamName | None = Field(None, description="Manifest name of a team.")
    defaultRole: Annotated[RoleOrGuest | None, NullMeans("guest")] = None

    def natural_key(self) -> str:
        # NOTE: providers have nothing else a person recognises; labels are not unique (pin ids).
        return self.label


#: Settings an answer always carries, empty while not set (a ``pending`` provider).
UNSET_WHEN_EMPTY = frozenset({"entityID", "ssoURL", "certificate"})


class SamlKind(Kind, HasRailsAcrossKinds):
    """SAML providers by label; the certificate is compared by value and always sensitive."""

    name = "saml"
    plural = "SAML providers"
    prune_setting = "saml"
    declaration = Declaration(
        position=120,
        section=Section(SamlEntry, name="saml", noun="SAML provider"),
        export_file="saml.yaml",
        reads=Reads(
            fields={
                "/orgs/*/saml": (
                    "id",
                    "label",
                    "entityID",
                    "ssoURL",
                    "certificate",
                    "defaultTeam.id",
                    "defaultRole",
                ),
            },
            # The definition takes a provider made with a label only, yet promises these three
            # in every answer: docform reads one without them as not set.
            copes_without={"/orgs/*/saml": ("entityID", "ssoURL", "certificate")},
            list_names=("saml",),
        ),
    )
    fields = SamlEntry
    references = ("team",)
    FIELDS = ("label", "entityID", "ssoURL", "certificate", "defaultTeam", "defaultRole")

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        return await reader.list(self.name, f"/orgs/{self.org_id}/saml")

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [self._desired(e) for e in manifests.section("saml").values()]

    def _desired(self, e: SamlEntry) -> Desired:
        fields = e.managed()
        if e.certificate is not None:
            fields["certificate"] = e.certificate.value
        if e.defaultTeam is not None:
            fields["defaultTeam"] = ref("team", e.defaultTeam)
        if "defaultRole" in fields:
            fields["defaultRole"] = role_value(fields["defaultRole"])
        return entry_desired(e, fields, e.label, sensitive=frozenset({"certificate"}))

    deleted_with: ClassVar[Mapping[str, str]] = {"defaultTeam": "cleared"}
    guard_replacement = True
    guard_weak = False
    replacement_loses = (
        "its id is part of the sign-on URL the identity provider calls: sign-in breaks until "
        "the provider is given the new one"
    )

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed:
        # The service answers a setting not made yet as an empty string (docs/service.md).
        fields = {k: raw.get(k) for k in self.FIELDS}
        fields |= {k: raw.get(k) or None for k in UNSET_WHEN_EMPTY}
        team = raw.get("defaultTeam")
        fields["defaultTeam"] = index.ref("team", team["id"]) if team else None
        return Observed(
            id=raw["id"],
            key=(raw["label"],),
            fields=fields,
            title=raw["label"],
            raw=raw,
            sensitive=frozenset({"certificate"}),
        )

    def _body(self, desired: Desired, names: Any, resolve: Resolve) -> dict[str, Any]:
        body = body_of(desired.fields, resolve, names)
        if "certificate" in body:
            body["certificate"] = secret(desired.address, "certificate")
        return body

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        body = self._body(desired, self.FIELDS, resolve)
        return [Call("POST", f"/orgs/{self.org_id}/saml", body)]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        body = self._body(change.desired, change.changed, change.resolve)
        return [Call("PATCH", f"/orgs/{self.org_id}/saml/{change.observed.id}", body)]

    def delete_calls(self, observed: Observed) -> list[Call]:
        return [Call("DELETE", f"/orgs/{self.org_id}/saml/{observed.id}")]

    def rails_across_kinds(
        self, matchings: Mapping[str, Matching], changes: Sequence[Change]
    ) -> list[Violation]:
        """Never delete the last SAML provider of an organization that enforces SSO: nobody
        could sign in through SSO, and SSO-only members not at all."""
        mine = matchings[self.name]
        live = {o.id for o in (*(p.observed for p in mine.pairs), *mine.unmatched)}
        deletes = [c for c in changes if c.kind == self.name and c.action == "delete"]
        deleted = {c.live_id for c in deletes}
        created = any(c.kind == self.name and c.action == "create" for c in changes)
        if not live or not live <= deleted or created or not _sso_enforced(matchings):
            return []
        names = sorted(c.address_with_key for c in deletes)
        return [
            Violation(
                "last-saml-provider",
                f"the plan deletes every SAML provider ({', '.join(names)}) while the "
                "organization enforces SSO; keep one under saml:, or set `sso: false` on the "
                "organization first",
                address="organization",
                changes=tuple(sorted(c.key for c in deletes)),
            )
        ]

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        fields: dict[str, Any] = {"id": raw["id"], "label": raw["label"]}
        fields |= {k: raw[k] for k in ("entityID", "ssoURL") if raw.get(k)}
        if raw.get("certificate"):
            fields["certificate"] = FileValue(raw["certificate"], "certs", "pem")
        if raw.get("defaultTeam"):
            fields["defaultTeam"] = LiveRef("team", raw["defaultTeam"]["id"])
        if raw.get("defaultRole") is not None:
            fields["defaultRole"] = raw["defaultRole"]
        return Exported("saml", self.name, raw["id"], raw["label"], fields)


def _sso_enforced(matchings: Mapping[str, Any]) -> bool:
    """Whether the organization enforces SSO once the plan is applied."""
    organization = matchings.get("organization")
    if organization is None or not organization.pairs:
        return False
    pair = organization.pairs[0]
    wanted = pair.desired.fields.get("sso")
    return bool(pair.observed.fields.get("sso") if wanted is None else wanted)
