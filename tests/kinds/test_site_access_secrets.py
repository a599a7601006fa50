"""The secrets of who-can-get-in never leave docform: a site's visitor private key, its share
links' URLs (which hold their keys) and link invite ids, which the sandbox answers as the
service does. Every output of every command (plan in each form and with -v, a saved plan and
show, apply, drift with a report, export, errors) and every file docform writes (docform.lock,
saved plans, reports, exported manifests) is scanned for every such secret the sandbox held at
any point of the run, as tests/canary.py scans for the API token."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from planning import live_api, open_store, run, write_manifests

DOCS = "/orgs/org_acme/sites/site_docs"


def service_secrets(sandbox: Path) -> set[str]:
    """Every secret the sandbox holds now: private keys, share link keys, link invite ids."""
    with open_store(sandbox) as store:
        keys = {doc["privateKey"] for doc in store.all("publishing-auth")}
        keys |= {doc["key"] for doc in store.all("share-link")}
        keys |= {doc["id"] for doc in store.all("link-invite")}
    return keys


class Watch:
    """Runs docform, keeping every text it showed and every secret the sandbox held."""

    def __init__(self, sandbox: Path, caplog: pytest.LogCaptureFixture) -> None:
        self.sandbox = sandbox
        self.caplog = caplog
        self.secrets: set[str] = set()
        self.texts: dict[str, str] = {}

    def __call__(self, *args: Any, exit_codes: tuple[int, ...] = (0,)) -> str:
        self.secrets |= service_secrets(self.sandbox)
        result = run(list(args), self.sandbox)
        self.secrets |= service_secrets(self.sandbox)
        name = " ".join(str(a) for a in args)
        assert result.exit_code in exit_codes, f"{name}: {result.output}"
        self.texts[name] = result.output + (result.stderr or "")
        return result.output

    def leaks(self, *folders: Path) -> list[str]:
        texts = {**self.texts, "debug log": self.caplog.text}
        for folder in folders:
            for path in folder.rglob("*"):
                if path.is_file() and ".sqlite" not in path.name:
                    texts[str(path)] = path.read_text(encoding="utf-8", errors="replace")
        return sorted(
            f"{where} holds a secret" for where, text in texts.items()
            if any(secret in text for secret in self.secrets)
        )  # fmt: skip


def test_no_secret_of_visitor_auth_share_links_or_invites_is_ever_shown(
    sandbox: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    live_api(sandbox, "POST", f"{DOCS}/share-links", {"name": "Unmanaged"})
    live_api(sandbox, "POST", "/orgs/org_acme/link-invites", {"role": "read"})
    live_api(sandbox, "GET", f"{DOCS}/publishing/auth")
    directory = tmp_path / "manifests"
    site = {
        "id": "site_docs",
        "visibility": "visitor-auth",
        "visitorAuth": {"backend": "custom", "fallbackURL": "https://id.acme.test/", "rotate": "1"},
        "shareLinks": {"partners": {"title": "Partners"}, "press": {"active": False}},
    }
    doc: dict[str, Any] = {
        "organization": {"id": "org_acme"},
        "sites": {"docs": site},
        "linkInvites": {"join": {"role": "read"}},
    }
    write_manifests(directory, yaml.safe_dump(doc))
    watch = Watch(sandbox, caplog)
    saved = tmp_path / "saved.json"
    for form in ([], ["-v"], ["--json"], ["--markdown"], ["--explain-token"]):
        watch("plan", directory, *form)
    watch("plan", directory, "--out", saved)
    for form in ([], ["--json"], ["--markdown"]):
        watch("show", saved, *form)
    watch("apply", saved, "--manifests", directory, "--yes", "-v")
    site["visitorAuth"]["rotate"] = "2"
    site["shareLinks"]["partners"]["active"] = False
    doc["linkInvites"]["join"]["role"] = "edit"  # a PATCH, and a DELETE of the undeclared one
    doc["docform"] = {"prune": {"linkInvites": True}}
    write_manifests(directory, yaml.safe_dump(doc))
    report = tmp_path / "drift.md"
    watch("drift", directory, "--report", report, exit_codes=(2,))
    watch("drift", directory, "--json", exit_codes=(2,))
    watch("apply", directory, "--yes", "--json")
    watch("export", "org_acme", tmp_path / "exported")
    watch("plan", tmp_path / "exported", "--markdown", "-v")
    del site["visitorAuth"]
    write_manifests(directory, yaml.safe_dump(doc))
    assert "needs visitorAuth" in watch("plan", directory, exit_codes=(1,))
    assert len(watch.secrets) >= 7  # the keys before and after the rotations, links, invites
    assert watch.leaks(directory, tmp_path / "exported", saved.parent) == []
    assert (directory / "docform.lock").is_file()
