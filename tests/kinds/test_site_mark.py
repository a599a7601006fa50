"""The mark docform puts on a live object read under a site (`docform.kind_framework.marks`):
spelled in one place, never a field the service could answer, and what every site-held kind's
read, plan and export go through."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from contract_definition import PINNED

from docform.kind_framework import marks

SOURCE = Path(marks.__file__).parents[1]


def _property_names(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict):
            yield from properties
        for value in node.values():
            yield from _property_names(value)
    elif isinstance(node, list):
        for value in node:
            yield from _property_names(value)


def test_no_field_the_service_defines_can_be_taken_for_the_mark() -> None:
    definition = json.loads(PINNED.read_text(encoding="utf-8"))
    names = set(_property_names(definition))
    assert len(names) > 100  # the definition was read, not an empty document
    assert [name for name in names if name.startswith("_")] == []


def test_the_site_mark_is_spelled_only_where_it_is_defined() -> None:
    spelled = re.compile(re.escape(repr(marks.SITE)) + "|" + re.escape(json.dumps(marks.SITE)))
    found = [
        str(path.relative_to(SOURCE))
        for path in sorted(SOURCE.rglob("*.py"))
        if path != Path(marks.__file__) and spelled.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_an_answer_read_under_a_site_keeps_its_fields_and_names_its_site() -> None:
    answer = {"id": "sec_1", "title": "Guides", "site": "not the mark"}
    read = marks.under_site(answer, "site_docs")
    assert {k: v for k, v in read.items() if k != marks.SITE} == answer
    assert marks.site_id(read) == "site_docs"
    assert (marks.site_of(read).kind, marks.site_of(read).id) == ("site", "site_docs")
    setting = marks.site_setting({"enabled": True}, "site_docs")
    assert setting["id"] == marks.site_id(setting) == "site_docs"
