"""Live text no UTF-8 can carry (a lone surrogate: JSON escapes one, a hostile or broken service
can send it) in a plan: its checksum and fingerprints are computed, its JSON reads back as
itself with the same checksum, and two texts that differ only there differ."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.engine.fingerprints import fingerprint
from docform.engine.plan import Change, Plan
from docform.render.json import render_json

HOSTILE = st.text(st.characters(codec=None, categories=["Cs", "Cc", "Zl", "Zp", "Lo", "Ll"]))
"""Texts with lone surrogates, controls, line and paragraph separators among letters."""


def plan_titled(title: str) -> Plan:
    change = Change("space.~sp_1", "space", "update", "drift", {"title": title}, {"title": "x"})
    return Plan(organization="org_acme", changes=[change])


def test_a_lone_surrogate_is_checksummed_not_a_traceback():
    plan = plan_titled("Hand\ud800book")
    assert len(plan.checksum()) == 64
    assert plan.checksum() != plan_titled("Hand\ufffdbook").checksum()
    assert len(fingerprint({"title": "\udfff"})) == 16


@settings(max_examples=fuzz_examples(200), deadline=None)
@given(HOSTILE)
def test_the_plan_json_of_any_text_reads_back_with_its_checksum(title):
    plan = plan_titled(title)
    text = render_json(plan)
    text.encode("utf-8")  # writable as a file and to a terminal
    doc = json.loads(text)
    assert doc["changes"][0]["before"]["title"] == title
    assert doc["checksum"] == plan.checksum()
