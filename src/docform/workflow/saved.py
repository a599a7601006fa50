"""Saved plans: the plan JSON plus what apply needs to check it against a fresh plan.

A saved plan is a receipt, never a script (`docform.workflow.receipt`): apply plans the
manifests again and applies that fresh plan only when it is exactly the saved one. A saved
plan holds no secret, only keyed fingerprints of the secrets it sends, and names its manifest
directory so that apply finds them.

The manifest directory is stored relative to the root of the Git repository holding it
(``manifests``), so the plan file can be kept, downloaded or copied anywhere and applied from
any checkout of that repository; outside a repository, relative to the plan file's directory.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from docform.engine.audience import AudienceChange
from docform.engine.fingerprints import digest, json_text
from docform.engine.ignore import Ignored
from docform.engine.plan import Call, Change, FieldChange, Plan, Unmanaged
from docform.engine.rails import RailReport
from docform.engine.targets import Targeting
from docform.errors import DocformError
from docform.manifest import ManifestSet
from docform.policies.results import PolicyReport
from docform.workflow.receipt import secret_fingerprints
from docform.workflow.repository import repository_root

SENSITIVE = "(sensitive)"
BODY_KEYS = ("format_version", "organization", "changes")
SHOWN_KEYS = (
    "unmanaged", "ignored", "notes", "warnings", "rails", "policies", "audience", "targeting",
    "not_planned", "summary", "fingerprints", "token", "commit",
)  # fmt: skip
"""What a saved plan shows besides what apply does (`BODY_KEYS`): covered by its own checksum,
``shown_checksum``, so that what a reviewer reads is what was planned."""


def shown_checksum(doc: Mapping[str, Any]) -> str:
    return digest({key: doc.get(key) for key in SHOWN_KEYS})


def save_plan(plan: Plan, manifests: ManifestSet, path: Path) -> None:
    doc = plan.to_json()
    directory = Path(manifests.directory)
    root = repository_root(directory)
    base = root if root is not None else path.resolve().parent
    doc["manifest_directory"] = _relative(directory, base)
    doc["manifest_directory_base"] = "repository" if root is not None else "plan file"
    doc["secrets"] = secret_fingerprints(plan, secret_resolver(manifests))
    doc["shown_checksum"] = shown_checksum(doc)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json_text(doc) + "\n", encoding="utf-8")


def _relative(directory: Path, base: Path) -> str:
    """``directory`` as a POSIX path relative to ``base``; absolute only when there is no
    relative way (another drive on Windows)."""
    try:
        relative = os.path.relpath(directory.resolve(), base.resolve())
    except ValueError:
        return directory.resolve().as_posix()
    return Path(relative).as_posix()


def saved_manifest_directory(plan_file: Path, doc: dict[str, Any]) -> Path:
    """The manifest directory a saved plan names: under the repository holding the plan file,
    else under the one holding the working directory (a plan downloaded elsewhere, applied
    from a checkout); beside the plan file for a plan made outside any repository."""
    directory = Path(doc.get("manifest_directory") or ".")
    if directory.is_absolute():
        return directory
    if doc.get("manifest_directory_base") != "repository":
        return plan_file.parent / directory
    for start in (plan_file.parent, Path.cwd()):
        root = repository_root(start)
        if root is not None and (root / directory).is_dir():
            return root / directory
    raise SavedPlanError(
        f"{plan_file} was planned from the manifests at '{directory.as_posix()}' of its "
        f"repository, and {plan_file.parent} is in no repository holding them: give the "
        "manifest directory with 'docform apply PLANFILE --manifests DIR'"
    )


class SavedPlanError(DocformError):
    """A saved plan that cannot be applied: unreadable, of another format, or stale."""


def read_saved(path: Path) -> dict[str, Any]:
    """The document saved at ``path``, checked to be a plan of this format whose checksum is
    that of its changes (a plan edited by mistake is refused plainly; one edited with its
    checksum recomputed is refused by apply, which compares it with a fresh plan)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except RecursionError:
        raise SavedPlanError(
            f"{path}: not a saved plan (nested too deeply to read); save one with 'docform "
            "plan --out FILE'"
        ) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SavedPlanError(
            f"{path}: not a saved plan ({exc}); save one with 'docform plan --out FILE'"
        ) from None
    if not isinstance(doc, dict) or str(doc.get("format_version", "")).split(".")[0] != "1":
        raise SavedPlanError(
            f"{path}: not a docform plan of format 1.x; save one with 'docform plan --out'"
        )
    body = {key: doc.get(key) for key in BODY_KEYS}
    for optional in ("allowed", "secret_fingerprints"):
        if optional in doc:
            body[optional] = doc[optional]
    if digest(body) != doc.get("checksum") or shown_checksum(doc) != doc.get("shown_checksum"):
        what = "its checksum" if digest(body) != doc.get("checksum") else "what it shows"
        raise SavedPlanError(
            f"{path}: the plan was edited after it was saved ({what} does not match); "
            "make a new one with 'docform plan --out'"
        )
    return doc


def load_plan(path: Path) -> tuple[Plan, dict[str, Any]]:
    """The plan saved at ``path`` (to show it), and the whole saved document."""
    doc = read_saved(path)
    try:
        plan = Plan(organization=doc["organization"], fingerprints=doc.get("fingerprints", {}))
        plan.secret_prints = dict(doc.get("secret_fingerprints") or {})
        plan.changes = [_change(c) for c in doc["changes"]]
        _read_context(plan, doc)
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
        raise SavedPlanError(
            f"{path}: not a saved plan docform can read ({type(exc).__name__}: {exc}); save "
            "one with 'docform plan --out'"
        ) from None
    return plan, doc


def _read_context(plan: Plan, doc: dict[str, Any]) -> None:
    """What the plan showed besides its changes (unmanaged and ignored objects, notes, the
    rails and the targeting as planned), so a saved plan reads as it was reviewed. Apply
    evaluates the rails again."""

    plan.unmanaged = [Unmanaged(u["kind"], u["id"], u["title"]) for u in doc.get("unmanaged", [])]
    plan.ignored = [Ignored(**item) for item in doc.get("ignored", [])]
    plan.warnings = list(doc.get("warnings", []))
    plan.notes = list(doc.get("notes", []))
    plan.audience = [AudienceChange.from_json(a) for a in doc.get("audience", [])]
    if doc.get("rails"):
        plan.rails = RailReport.from_json(doc["rails"])
    if doc.get("policies"):
        plan.policies = PolicyReport.from_json(doc["policies"])
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
        takes=list(doc.get("takes", [])),
        loses=doc.get("loses"),
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


def secret_resolver(manifests: ManifestSet) -> Callable[[str], str]:
    """Reads ``{"$secret": "saml.okta.certificate"}`` values from the manifests."""
    entries = {entry.address: entry for entry in manifests.entries()}

    def resolve(source: str) -> str:
        parts = source.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            entry = entries.get(".".join(parts[:cut]))
            if entry is not None:
                value: Any = entry
                for name in parts[cut:]:
                    # A free-form configuration is a mapping: its keys are not attributes.
                    if isinstance(value, Mapping):
                        value = value.get(name)
                    else:
                        value = getattr(value, name, None)
                if value is not None:
                    return str(value.value)
        raise SavedPlanError(
            f"the plan needs the secret {source}, which the manifests no longer hold; "
            "make a new plan"
        )

    return resolve
