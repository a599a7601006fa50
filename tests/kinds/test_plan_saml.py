"""End to end: a SAML provider made with a label only (the definition's create needs no more).

The service answers every provider with ``entityID``, ``ssoURL`` and ``certificate``; one not
set yet comes back empty. docform reads an empty one as not set: the entry converges, and
export writes no empty setting (which the manifests would refuse).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from planning import apply, assert_converged, live_api, run, write_manifests

MANIFESTS = "organization: {id: org_acme}\nsaml:\n  okta: {label: Okta}\n"


def test_a_provider_with_a_label_only_converges_and_exports_no_empty_setting(
    sandbox: Path, manifests: Path, tmp_path: Path
) -> None:
    write_manifests(manifests, MANIFESTS)
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    (provider,) = live_api(sandbox, "GET", "/orgs/org_acme/saml")["items"]
    assert (provider["ssoURL"], provider["status"]) == ("", "pending")
    exported = tmp_path / "exported"
    assert run(["export", "org_acme", exported], sandbox).exit_code == 0
    written = yaml.safe_load((exported / "saml.yaml").read_text(encoding="utf-8"))
    (entry,) = written["saml"].values()
    assert {k: v for k, v in entry.items() if k != "id"} == {"label": "Okta"}
    assert run(["plan", exported, "--detailed-exitcode"], sandbox).exit_code == 0
