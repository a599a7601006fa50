"""The caller in the sandbox: ``GET /user`` answers the token's own user, and 404 for a token
that belongs to no user (sandbox/routes/user.py)."""

from conftest import ORG, OTHER_ORG_TOKEN, SANDBOX_ADMIN_TOKEN, SyncApi
from docform_sandbox.app import SandboxConfig, create_app


def test_a_users_token_gets_its_own_user(api):
    answer = api.get("user")
    assert answer.status_code == 200
    assert answer.json() == {
        "object": "user",
        "id": "u_alice",
        "displayName": "Alice Admin",
        "email": "alice@acme.test",
        "photoURL": "https://avatars.sandbox.test/u_alice.png",
        "urls": {"location": "https://api.sandbox.test/v1/users/u_alice"},
    }


def test_each_token_gets_its_own_user(api):
    answer = api.get("user", headers={"Authorization": f"Bearer {OTHER_ORG_TOKEN}"})
    assert (answer.json()["id"], answer.json()["email"]) == ("u_carol", "carol@other.test")


def test_a_token_of_no_user_is_404_and_can_still_ping(store):
    admin = SyncApi(
        create_app(store, SandboxConfig(admin_tokens=(SANDBOX_ADMIN_TOKEN,))), SANDBOX_ADMIN_TOKEN
    )
    try:
        answer = admin.get("user")
        assert answer.status_code == 404
        assert answer.json() == {
            "error": {
                "code": 404,
                "message": "the bearer token belongs to no user (an admin or integration "
                "token): GET /user needs a user's own token",
            }
        }
        assert admin.post(f"orgs/{ORG}/ping").status_code == 200
    finally:
        admin.close()


def test_without_a_token_it_is_401(api):
    answer = api.get("user", headers={"Authorization": ""})
    assert answer.status_code == 401
    assert answer.json()["error"]["message"] == "missing bearer token in the Authorization header"
