"""The JSON Schema of the manifest format (manifest/schema.py, schemas/docform.schema.json)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from docform.cli import cli
from docform.manifest import manifest_schema, schema_text

COMMITTED = Path(__file__).parents[2] / "schemas" / "docform.schema.json"


def test_committed_schema_is_up_to_date() -> None:
    # When this fails: make schema
    assert COMMITTED.read_text(encoding="utf-8") == schema_text()


def test_schema_command_prints_the_schema() -> None:
    result = CliRunner().invoke(cli, ["schema"])
    assert result.exit_code == 0
    assert json.loads(result.output) == manifest_schema()


def test_schema_names_its_dialect_and_every_section() -> None:
    schema = manifest_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    # A new kind's section joins in its place; these stay, in this order, with docform first
    # and policies last.
    known = [
        "docform", "organization", "members", "teams", "collections", "spaces", "sites",
        "openapi", "saml", "linkInvites", "translations", "integrations", "gitSync", "policies",
    ]  # fmt: skip
    properties = list(schema["properties"])
    assert [name for name in properties if name in known] == known
    assert properties[0] == "docform" and properties[-1] == "policies"
    assert schema["additionalProperties"] is False


def test_member_value_is_a_role_or_an_entry() -> None:
    members = manifest_schema()["properties"]["members"]["anyOf"][0]
    (value,) = members["patternProperties"].values()
    assert value["anyOf"][0]["enum"][-1] == "guest"
    assert value["anyOf"][1] == {"$ref": "#/$defs/MemberEntry"}
    assert members["additionalProperties"] is False


def test_null_is_allowed_only_where_the_api_takes_it() -> None:
    definitions = manifest_schema()["$defs"]
    emoji = definitions["SpaceEntry"]["properties"]["emoji"]
    assert {"type": "null"} in emoji["anyOf"]
    collection = definitions["SpaceEntry"]["properties"]["collection"]
    assert "anyOf" not in collection
    assert collection["type"] == "string"


def test_secret_field_is_a_string_or_a_file_reference() -> None:
    certificate = manifest_schema()["$defs"]["SamlEntry"]["properties"]["certificate"]
    assert [option["type"] for option in certificate["anyOf"]] == ["string", "object"]
    assert certificate["anyOf"][1]["required"] == ["file"]
