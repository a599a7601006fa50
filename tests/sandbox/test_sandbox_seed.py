"""Seeding a sandbox from YAML, directly and through ``docform sandbox seed``
(sandbox/seed.py)."""

import pytest
from click.testing import CliRunner

from conftest import ORG, SEED_FILE
from docform.cli import cli
from docform_sandbox.seed import SeedError, apply_seed, load_seed_file
from docform_sandbox.store import Store

KINDS = ("organization", "user", "member", "site", "token")


@pytest.fixture
def empty(tmp_path):
    store = Store(tmp_path / "empty.sqlite")
    yield store
    store.close()


def write(tmp_path, text, name="seed.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def counts(store):
    return {kind: store.count(kind) for kind in KINDS}


def test_seed_creates_organizations_members_sites_and_tokens(empty):
    apply_seed(empty, load_seed_file(SEED_FILE))
    assert counts(empty) == {"organization": 2, "user": 4, "member": 4, "site": 1, "token": 3}
    assert empty.get("member", f"{ORG}/u_bob")["role"] is None


def test_seeding_twice_creates_nothing_more(empty):
    apply_seed(empty, load_seed_file(SEED_FILE))
    before = counts(empty)
    apply_seed(empty, load_seed_file(SEED_FILE))
    assert counts(empty) == before


def test_seeding_again_keeps_what_clients_changed(store, api):
    api.patch(f"orgs/{ORG}", json={"title": "Acme Renamed"})
    apply_seed(store, load_seed_file(SEED_FILE))
    assert api.get(f"orgs/{ORG}").json()["title"] == "Acme Renamed"


def test_bad_field_names_the_file_and_the_field(tmp_path):
    path = write(
        tmp_path,
        "organizations:\n"
        "  - id: org_x\n"
        "    title: Org X\n"
        "    members:\n"
        "      - {id: u_x, email: x@x.test, role: owner}\n",
    )
    with pytest.raises(SeedError) as caught:
        load_seed_file(path)
    assert str(caught.value) == (
        f"{path}: organizations.0.members.0.role: Input should be 'admin', 'create', 'review', "
        "'edit', 'comment' or 'read'"
    )


def test_unknown_field_is_refused(tmp_path):
    path = write(tmp_path, "organizations:\n  - {id: org_x, title: Org X, colour: red}\n")
    with pytest.raises(SeedError) as caught:
        load_seed_file(path)
    assert str(caught.value) == f"{path}: organizations.0.colour: Extra inputs are not permitted"


def test_seed_that_is_not_a_mapping_is_refused(tmp_path):
    path = write(tmp_path, "- org_x\n")
    with pytest.raises(SeedError) as caught:
        load_seed_file(path)
    assert str(caught.value) == (
        f"{path}: top level: Input should be a valid dictionary or instance of Seed"
    )


def test_unparsable_yaml_is_refused_naming_the_file(tmp_path):
    path = write(tmp_path, "organizations: [unclosed\n")
    with pytest.raises(SeedError) as caught:
        load_seed_file(path)
    assert str(caught.value).startswith(f"{path}: cannot read the seed file: ")


def test_missing_seed_file_is_refused(tmp_path):
    with pytest.raises(SeedError) as caught:
        load_seed_file(tmp_path / "absent.yaml")
    assert str(caught.value).startswith(f"{tmp_path / 'absent.yaml'}: cannot read the seed file")


def test_token_for_an_unknown_user_is_refused_before_any_write(tmp_path, empty):
    path = write(
        tmp_path,
        "organizations:\n  - {id: org_x, title: Org X}\n"
        "tokens:\n  - {token: tok_ghost_0123456789, user: u_ghost}\n",
    )
    with pytest.raises(SeedError) as caught:
        apply_seed(empty, load_seed_file(path))
    assert str(caught.value) == f"{path}: tokens.0.user: token for unknown user 'u_ghost'"
    assert empty.count("organization") == 0


def test_token_for_a_user_seeded_earlier_is_accepted(tmp_path, store):
    path = write(tmp_path, "tokens:\n  - {token: tok_alice_second_01, user: u_alice}\n")
    apply_seed(store, load_seed_file(path))
    assert store.get("token", "tok_alice_second_01") == {
        "id": "tok_alice_second_01",
        "user": "u_alice",
    }


def test_cli_seed_loads_the_file_into_the_data_file(tmp_path):
    data = tmp_path / "cli.sqlite"
    result = CliRunner().invoke(cli, ["sandbox", "seed", "--data", str(data), str(SEED_FILE)])
    assert result.exit_code == 0, result.output
    assert result.output == f"Seeded {data} from {SEED_FILE}.\n"
    store = Store(data)
    assert counts(store)["organization"] == 2
    store.close()


def test_cli_seed_with_a_bad_file_exits_1_with_the_message(tmp_path):
    path = write(tmp_path, "tokens:\n  - {token: tok_ghost_0123456789, user: u_ghost}\n")
    data = tmp_path / "cli.sqlite"
    result = CliRunner().invoke(cli, ["sandbox", "seed", "--data", str(data), str(path)])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {path}: tokens.0.user: token for unknown user 'u_ghost'\n"
