"""End to end: a site's advertising (``sites.<site>.advertising``), made by hand through the
sandbox's API as an admin would, exported, planned, edited and drifted."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    in_ui,
    live_api,
    open_store,
    plan_json,
    run,
    write_manifests,
)

ADDRESS = "site.docs.advertising"
EXPORTED = "site.acme-docs.advertising"
SITE = "/orgs/org_acme/sites/site_docs"
MANIFESTS = """\
    organization: {id: org_acme, title: Acme}
    sites: {docs: {id: site_docs, title: Acme Docs%s}}
"""


def ads(sandbox: Path) -> dict[str, object]:
    answer: dict[str, object] = live_api(sandbox, "GET", SITE)["ads"]
    return answer


def test_submitting_a_site_plans_one_post_and_converges(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, MANIFESTS % ", advertising: {enabled: true, topic: webdev}")
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [(ADDRESS, "update")]
    submitted = change(plan, ADDRESS)
    assert calls(submitted) == [("POST", f"{SITE}/ads", {"topic": "webdev", "status": "in-review"})]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert ads(sandbox) == {"status": "in-review", "topic": "webdev"}


def test_a_hand_made_submission_exports_plans_empty_edits_and_drifts(
    sandbox: Path, tmp_path: Path
) -> None:
    submission = {"status": "in-review", "topic": "webdev"}
    in_ui(sandbox, "alice@acme.test", "POST", f"{SITE}/ads", submission)
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    sites = yaml.safe_load((exported / "sites.yaml").read_text())["sites"]
    assert sites["acme-docs"]["advertising"] == {"enabled": True, "topic": "webdev"}
    assert_converged(exported, sandbox)

    text = (exported / "sites.yaml").read_text().replace("topic: webdev", "topic: crypto")
    (exported / "sites.yaml").write_text(text)
    plan = plan_json(exported, sandbox)
    assert actions(plan) == [(EXPORTED, "update")]
    assert [field["path"] for field in change(plan, EXPORTED)["fields"]] == ["topic"]

    apply(exported, sandbox)
    in_ui(sandbox, "alice@acme.test", "POST", f"{SITE}/ads", {"status": "disabled"})
    report = json.loads(run(["drift", exported, "--json"], sandbox).stdout)
    (drifted,) = [c for c in report["organizations"][0]["changes"] if c["kind"] == "advertising"]
    assert [e["actor"]["email"] for e in drifted["changed_by"]] == ["alice@acme.test"]
    assert drifted["changed_by"][0]["action"] == "site.ads.updated"


def test_a_live_site_stays_live_and_withdrawing_turns_it_off(
    sandbox: Path, manifests: Path
) -> None:
    live_api(sandbox, "POST", f"{SITE}/ads", {"status": "in-review", "topic": "crypto"})
    with open_store(sandbox) as store:  # the ad network puts it live (its own review)
        site = store.get("site", "site_docs")
        assert site is not None
        store.update("site", {**site, "ads": {**site["ads"], "status": "live", "zoneId": "z1"}})
    write_manifests(manifests, MANIFESTS % ", advertising: {enabled: true, topic: crypto}")
    assert actions(plan_json(manifests, sandbox)) == []
    write_manifests(manifests, MANIFESTS % ", advertising: {enabled: false}")
    apply(manifests, sandbox)
    assert ads(sandbox) == {"status": "disabled", "topic": "crypto", "zoneId": "z1"}
    assert_converged(manifests, sandbox)


def test_a_site_never_submitted_is_withdrawn_to_pending(sandbox: Path) -> None:
    assert ads(sandbox) == {"status": "pending", "submittable": True}
    live_api(sandbox, "POST", f"{SITE}/ads", {"status": "in-review", "topic": "webdev"})
    live_api(sandbox, "POST", f"{SITE}/ads", {"status": "disabled"})
    assert ads(sandbox) == {"status": "pending", "submittable": True}


def test_an_unknown_topic_is_refused_at_its_line(manifests: Path, sandbox: Path) -> None:
    write_manifests(manifests, MANIFESTS % ", advertising: {enabled: true, topic: tv}")
    result = run(["validate", manifests], sandbox)
    assert result.exit_code == 1
    assert "main.yaml:2:78: sites.docs.advertising.topic" in result.output
    assert "advertising.topic: 'tv' is not one of: webdev, crypto" in result.output


POLICY = """\
    policies:
      no-crypto-ads:
        description: No ads about crypto on our sites.
        each: change
        rule: >-
          !(change.kind == 'advertising' && has(change.after.topic)
            && change.after.topic == 'crypto')
        message: "'no crypto ads on ' + change.address"
"""


def test_a_policy_sees_an_advertising_change(manifests: Path, sandbox: Path) -> None:
    site = MANIFESTS % ", advertising: {enabled: true, topic: crypto}"
    write_manifests(manifests, site + POLICY)
    result = run(["plan", manifests, "--json"], sandbox)
    assert result.exit_code == 1 and result.stdout, result.output
    (found,) = json.loads(result.stdout)["policies"]["results"]
    assert (found["address"], found["message"]) == (ADDRESS, f"no crypto ads on {ADDRESS}")
