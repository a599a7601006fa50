"""A site's agent channels in the sandbox: created pending with their role, their setup held to
the one list their type takes, changed a type with its setup at once, deleted
(sandbox/routes/site_channels.py)."""

import pytest

from conftest import EDITOR_TOKEN, ORG

CHANNELS = f"orgs/{ORG}/sites/site_docs/channels"
EDITOR = {"Authorization": f"Bearer {EDITOR_TOKEN}"}
SLACK = {"type": "builtin:slack", "setupSettings": {"allowedChannels": ["docs", "support-*"]}}


def made(api, body=SLACK):
    response = api.post(CHANNELS, json=body)
    assert response.status_code == 201, response.text
    return response.json()


def refused(response, status):
    assert response.status_code == status, response.text
    message: str = response.json()["error"]["message"]
    return message


def test_a_new_channel_is_pending_with_no_answers_and_supports_by_default(api):
    channel = made(api)
    assert (channel["status"], channel["answers"], channel["role"]) == ("pending", 0, "support")
    assert channel["setupSettings"] == SLACK["setupSettings"]
    assert channel["urls"]["location"].endswith(f"/channels/{channel['id']}")
    assert api.get(f"{CHANNELS}/{channel['id']}").json() == channel


def test_two_channels_of_a_type_may_share_a_site(api):
    ids = {made(api)["id"], made(api)["id"]}
    assert {item["id"] for item in api.get(CHANNELS).json()["items"]} == ids


@pytest.mark.contract_exempt("sends setups the service refuses, to check the refusal")
@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ({"allowedTeams": ["DOC"]}, "setupSettings.allowedTeams: a builtin:slack channel takes"),
        ({"allowedChannels": ["two words"]}, "'two words' is not a name or pattern"),
        ({"allowedChannels": "docs"}, "must be a list of names or patterns"),
    ],
)
def test_a_setup_its_type_does_not_take_is_refused(api, setup, message):
    response = api.post(CHANNELS, json={"type": "builtin:slack", "setupSettings": setup})
    assert message in refused(response, 400)


@pytest.mark.contract_exempt("sends a repository without its owner, to check the refusal")
def test_a_github_channel_takes_repositories_as_owner_and_name(api):
    body = {"type": "builtin:github", "setupSettings": {"allowedRepositories": ["docs"]}}
    assert "'docs' is not a name or pattern" in refused(api.post(CHANNELS, json=body), 400)
    body["setupSettings"]["allowedRepositories"] = ["acme/docs", "acme/*"]
    assert made(api, body)["setupSettings"] == body["setupSettings"]


def test_a_patch_sets_a_type_with_its_setup_or_the_role(api):
    channel = made(api)
    one = f"{CHANNELS}/{channel['id']}"
    linear = {"type": "builtin:linear", "setupSettings": {"allowedTeams": ["DOC"]}}
    changed = api.patch(one, json=linear).json()
    assert (changed["type"], changed["setupSettings"], changed["role"]) == (
        "builtin:linear",
        {"allowedTeams": ["DOC"]},
        "support",
    )
    assert api.patch(one, json={"role": "collaborator"}).json()["role"] == "collaborator"


@pytest.mark.contract_exempt("sends a type without its setup, to check the refusal")
def test_a_type_without_its_setup_is_refused(api):
    one = f"{CHANNELS}/{made(api)['id']}"
    message = refused(api.patch(one, json={"type": "builtin:discord"}), 400)
    assert message == "type and setupSettings are set together, neither null"


def test_deleting_answers_205_then_204_and_the_channel_is_gone(api):
    one = f"{CHANNELS}/{made(api)['id']}"
    assert api.delete(one).status_code == 205
    assert api.delete(one).status_code == 204
    assert api.get(one).status_code == 404


def test_an_editor_reads_the_channels_and_changes_none(api):
    channel = made(api)
    assert api.get(CHANNELS, headers=EDITOR).status_code == 200
    assert api.post(CHANNELS, json=SLACK, headers=EDITOR).status_code == 403
    patch = api.patch(f"{CHANNELS}/{channel['id']}", json={"role": "collaborator"}, headers=EDITOR)
    assert patch.status_code == 403
