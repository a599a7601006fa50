"""The organization's custom fonts (``customFonts:``), matched by their family.

A font is a family and its faces, one file per weight, at least a regular one (400). Files are
uploaded in the app (or through the service's storage upload); a manifest names each face's
file by the storage key the upload gave it, which is what the create and the update take.
Answers name a face's file by the URL it is served at instead, and the service's definition
does not say how that URL relates to the storage key: docform reads a face's file as its
URL's path and takes a storage key to be that file when the path is the key or ends with
``/`` and the key (docs/service.md, "Custom fonts"). Export writes that path as the key.

A font's update sends the weights that change (a removed weight as a null storage key, which
the service reads as "remove") and the family when it changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

from pydantic import Field, field_validator

from docform.engine.capabilities import ComparesOwnWay
from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.engine.values import differing_parts
from docform.export.model import Exported
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_framework.planning import entry_desired
from docform.model.entry import Entry, ManifestModel

REGULAR = 400


class FontFace(ManifestModel):
    """One weight of the font and the file that draws it."""

    weight: int = Field(ge=1, le=1000, description="400 regular, 700 bold, 900 black...")
    storageKey: str = Field(
        min_length=1, max_length=512, description="The uploaded file's storage key."
    )


class CustomFontEntry(Entry):
    """One custom font of the organization, under a manifest name of its own."""

    kind = "custom_font"
    key_label = "family"
    former_key_fields = ("family",)

    family: str | None = Field(
        None, min_length=1, max_length=50, description="Its CSS font family (default: this key)."
    )
    faces: list[FontFace] = Field(
        min_length=1, description="Its faces, one per weight; a regular one (400) is required."
    )

    @field_validator("faces")
    @classmethod
    def _one_file_per_weight(cls, value: list[FontFace]) -> list[FontFace]:
        weights = [face.weight for face in value]
        twice = sorted({w for w in weights if weights.count(w) > 1})
        if twice:
            raise ValueError(f"weight {twice[0]} is written twice: a weight has one file")
        if REGULAR not in weights:
            raise ValueError(f"a font needs a regular face: add one of weight {REGULAR}")
        return value

    @property
    def font_family(self) -> str:
        return self.name if self.family is None else self.family

    def natural_key(self) -> str:
        # NOTE: a family is what a site's styling names; the service does not keep it unique.
        return self.font_family


def face_file(url: str) -> str:
    """A face's file as docform reads it: the path of the URL it is served at."""
    return unquote(urlsplit(url).path).lstrip("/")


def _is_file(key: str, path: str | None) -> bool:
    return path is not None and (path == key or path.endswith("/" + key))


class CustomFontKind(Kind, ComparesOwnWay):
    """Custom fonts: created with PUT, changed with POST, deleted."""

    name = "custom_font"
    declaration = Declaration(
        position=142,
        section=Section(CustomFontEntry),
        export_file="fonts.yaml",
        reads=Reads(
            fields={
                "/orgs/*/fonts": ("id", "custom", "fontFamily", "fontFaces[].weight",
                                  "fontFaces[].sources[].url"),
            },
            list_names=("fonts",),
        ),
    )  # fmt: skip

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        # The definition's list of fonts takes no page size: it answers every font at once.
        return await reader.list(self.name, self._list_path, {"limit": None})

    @property
    def _list_path(self) -> str:
        return f"/orgs/{self.org_id}/fonts"

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [self._desired(e) for e in manifests.section("customFonts").values()]

    def _desired(self, e: CustomFontEntry) -> Desired:
        faces = {str(face.weight): face.storageKey for face in e.faces}
        fields = {"family": e.font_family, "faces": faces}
        return entry_desired(e, fields, e.font_family)

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        if raw.get("custom") is False:
            return None  # one the service provides, not the organization's
        faces = {
            str(face["weight"]): face_file(face["sources"][0]["url"]) if face["sources"] else ""
            for face in raw["fontFaces"]
        }
        family = raw["fontFamily"]
        return Observed(
            id=raw["id"],
            key=(family,),
            fields={"family": family, "faces": faces},
            title=family,
            raw=raw,
        )

    def same_field(self, name: str, want: Any, have: Any) -> bool:
        if name != "faces" or not isinstance(want, dict) or not isinstance(have, dict):
            return False
        return want.keys() == have.keys() and all(_is_file(k, have[w]) for w, k in want.items())

    def changed_parts(self, name: str, before: Any, after: Any) -> list[tuple[str, Any, Any]]:
        if name != "faces" or not isinstance(before, dict) or not isinstance(after, dict):
            return differing_parts(name, before, after)
        return [
            (f"faces.{weight}", before.get(weight), after.get(weight))
            for weight in sorted({*before, *after}, key=int)
            if after.get(weight) is None or not _is_file(after[weight], before.get(weight))
        ]

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        faces = desired.fields["faces"]
        body = {
            "fontFamily": desired.fields["family"],
            "fontFaces": [
                {"weight": int(w), "storageKey": faces[w]} for w in sorted(faces, key=int)
            ],
        }
        return [Call("PUT", self._list_path, body)]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        body: dict[str, Any] = {}
        if "family" in change.changed:
            body["fontFamily"] = change.desired.fields["family"]
        if "faces" in change.changed:
            want, have = change.desired.fields["faces"], change.observed.fields["faces"]
            body["fontFaces"] = [
                {"weight": int(weight), "storageKey": want.get(weight)}
                for weight in sorted({*want, *have}, key=int)
                if weight not in want or not _is_file(want[weight], have.get(weight))
            ]
        return [Call("POST", f"{self._list_path}/{change.observed.id}", body)]

    def delete_calls(self, observed: Observed) -> list[Call]:
        return [Call("DELETE", f"{self._list_path}/{observed.id}")]

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        faces = [
            {"weight": face["weight"], "storageKey": face_file(face["sources"][0]["url"])}
            for face in sorted(raw["fontFaces"], key=lambda face: face["weight"])
            if face["sources"]
        ]
        fields = {"id": raw["id"], "family": raw["fontFamily"], "faces": faces}
        return Exported("customFonts", self.name, raw["id"], raw["fontFamily"], fields)
