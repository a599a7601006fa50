"""The committed description of the service's answers (src/docform/service/service_answers.json)
is the one the sandbox's route modules write (sandbox/service_answers.py): the client's answer
checks are derived from it, so it must never fall behind a route's answer."""

from __future__ import annotations

from docform.service.answer_description import DESCRIPTION_FILE, description
from docform_sandbox.openapi_description import openapi_description
from docform_sandbox.routes import ENDPOINTS
from docform_sandbox.service_answers import rendered, template


def test_the_committed_description_is_the_one_the_route_modules_write() -> None:
    # When this fails: make answers
    assert DESCRIPTION_FILE.read_text(encoding="utf-8") == rendered(), (
        "src/docform/service/service_answers.json is stale: run `make answers`"
    )


def test_it_holds_every_get_answer_as_the_openapi_description_has_it() -> None:
    openapi = openapi_description()
    gets = [ep for ep in ENDPOINTS if ep.method == "GET"]
    assert {template(ep.path) for ep in gets} == set(description()["paths"])
    for ep in gets:
        answer = openapi["paths"][ep.path]["get"]["responses"][str(ep.status)]
        schema = answer["content"]["application/json"]["schema"]
        assert description()["paths"][template(ep.path)] == schema, ep.path
    for name, schema in description()["components"]["schemas"].items():
        assert openapi["components"]["schemas"][name] == schema, name
