"""Saved plans: the plan JSON plus what apply needs to check and complete it.

A saved plan holds no secret. It names the manifest directory so that apply can read secret
values (``{"$secret": "saml.okta.certificate"}``) from the manifests again, and it records a
fingerprint of every live object the plan read so that apply can refuse a stale plan.

The manifest directory is stored relative to the plan file's own directory (``manifests``
for ``plan manifests --out docform.plan``), so a plan made on one machine or CI runner applies
from a checkout anywhere else, as long as the two keep their places in the repository.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from docform.engine.ignore import Ignored
from docform.engine.plan import Call, Change, FieldChange, Plan, Unmanaged
from docform.engine.rails import RailReport
from docform.engine.targets import Targeting
from docform.errors import DocformError

SENSITIVE = "(sensitive)"


def save_plan(plan: Plan, manifests: Any, path: Path) -> None:
    doc = plan.to_json()
    doc["manifest_directory"] = _relative_to_plan(Path(manifests.directory), path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _relative_to_plan(directory: Path, plan_file: Path) -> str:
    """``directory`` as a POSIX path relative to the directory of ``plan_file``; absolute only
    when there is no relative way (another drive on Windows)."""
    try:
        relative = os.path.relpath(directory.resolve(), plan_file.resolve().parent)
    except ValueError:
        return directory.resolve().as_posix()
    return Path(relative).as_posix()


def saved_manifest_directory(plan_file: Path, doc: dict[str, Any]) -> Path:
    """The manifest directory a saved plan names, found from where the plan file is now."""
    directory = Path(doc.get("manifest_directory") or ".")
    return directory if directory.is_absolute() else plan_file.parent / directory


class SavedPlanError(DocformError):
    """A saved plan that cannot be applied: unreadable, of another format, or stale."""


def load_plan(path: Path) -> tuple[Plan, dict[str, Any]]:
    """The plan saved at ``path``, and the whole saved document."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SavedPlanError(
            f"{path}: not a saved plan ({exc}); save one with 'docform plan --out FILE'"
        ) from None
    if not isinstance(doc, dict) or doc.get("format_version", "").split(".")[0] != "1":
        raise SavedPlanError(
            f"{path}: not a docform plan of format 1.x; save one with 'docform plan --out'"
        )
    plan = Plan(organization=doc["organization"], fingerprints=doc.get("fingerprints", {}))
    plan.changes = [_change(c) for c in doc["changes"]]
    if plan.checksum() != doc.get("checksum"):
        raise SavedPlanError(
            f"{path}: the plan was edited after it was saved (its checksum does not match); "
            "make a new one with 'docform plan --out'"
        )
    _read_context(plan, doc)
    return plan, doc


def _read_context(plan: Plan, doc: dict[str, Any]) -> None:
    """What the plan showed besides its changes (unmanaged and ignored objects, notes, the
    rails and the targeting as planned), so a saved plan reads as it was reviewed. Apply
    evaluates the rails again."""

    plan.unmanaged = [Unmanaged(u["kind"], u["id"], u["title"]) for u in doc.get("unmanaged", [])]
    plan.ignored = [Ignored(**item) for item in doc.get("ignored", [])]
    plan.warnings = list(doc.get("warnings", []))
    plan.notes = list(doc.get("notes", []))
    if doc.get("rails"):
        plan.rails = RailReport.from_json(doc["rails"])
    if doc.get("targeting"):
        plan.targeting = Targeting.from_json(doc["targeting"])


def _change(doc: dict[str, Any]) -> Change:
    return Change(
        address=doc["address"],
        previous_address=doc.get("previous_address"),
        human_key=doc.get("human_key"),
        kind=doc["kind"],
        action=doc["action"],
        action_reason=doc["action_reason"],
        live_id=doc.get("id"),
        before=doc.get("before"),
        after=doc.get("after"),
        fields=[_field(f) for f in doc.get("fields", [])],
        calls=[Call(c["method"], c["path"], c.get("body"), c.get("retry")) for c in doc["calls"]],
        depends_on=list(doc.get("depends_on", [])),
        replacement=doc.get("replacement"),
    )


def _field(doc: dict[str, Any]) -> FieldChange:
    # A hidden side was saved as "(sensitive)": marked sensitive again, it renders as hidden
    # rather than as that string, and its JSON (so the checksum) stays the same.
    hidden_after = doc["after"] == SENSITIVE
    return FieldChange(
        doc["path"],
        doc["before"],
        doc["after"],
        sensitive=hidden_after,
        sensitive_before=doc["before"] == SENSITIVE and not hidden_after,
        null_means=doc.get("null_means"),
    )


def stale_objects(saved: Plan, fresh: Plan) -> list[str]:
    """The live objects the saved plan changes that are no longer as they were read."""
    stale = []
    still_absent = {c.address for c in fresh.changes if c.action == "create"}
    for change in saved.changes:
        if change.action == "create" and change.address not in still_absent:
            stale.append(f"{change.address} (now exists: created since the plan)")
        if change.live_id is None or change.action == "restore":
            continue
        key = f"{change.kind}:{change.live_id}"
        if saved.fingerprints.get(key) != fresh.fingerprints.get(key):
            stale.append(f"{change.address} ({change.kind} {change.live_id})")
    return sorted(set(stale))


def secret_resolver(manifests: Any) -> Any:
    """Reads ``{"$secret": "saml.okta.certificate"}`` values from the manifests."""
    entries = {entry.address: entry for entry in manifests.entries()}

    def resolve(source: str) -> str:
        parts = source.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            entry = entries.get(".".join(parts[:cut]))
            if entry is not None:
                value: Any = entry
                for name in parts[cut:]:
                    value = getattr(value, name, None)
                if value is not None:
                    return value.value
        raise SavedPlanError(
            f"the plan needs the secret {source}, which the manifests no longer hold; "
            "make a new plan"
        )

    return resolve
