"""The URL each call is sent to is built once from the client's base URL (`request_url`), and
is exactly the URL httpx builds from ``base_url``, a relative path and ``params``: whatever the
path's segments, a query written in it, a stray fragment, or the params' keys and values."""

from __future__ import annotations

import httpx
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.api.urls import request_url
from docform.untrusted.paths import api_path

BASES = [
    "https://api.sandbox.test/v1",
    "http://127.0.0.1:8080/v1",
    "https://docs.example.com:8443/api/v1",
    "https://[::1]/v1",
]
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=8)
SEGMENT = TEXT.filter(lambda s: "/" not in s and "?" not in s and s not in (".", ".."))
QUERY = st.text(st.sampled_from("ab=&?#%+ /é:"), max_size=8)
PARAM_VALUE = st.one_of(TEXT, st.integers(-5, 5000), st.sampled_from(["true", "false"]))
PARAMS = st.one_of(st.none(), st.dictionaries(TEXT, PARAM_VALUE, max_size=3))


CLIENTS = {
    base: httpx.Client(
        base_url=base + "/", transport=httpx.MockTransport(lambda request: httpx.Response(500))
    )
    for base in BASES
}
"""Clients only build requests here; a mock transport spares each the making of TLS contexts."""


def httpx_url(base: str, path: str, params: dict[str, object] | None) -> httpx.URL:
    return CLIENTS[base].build_request("GET", path.lstrip("/"), params=params).url


@settings(max_examples=fuzz_examples(100), deadline=None)
@given(
    st.sampled_from(BASES),
    st.lists(SEGMENT, min_size=1, max_size=4),
    st.one_of(st.none(), QUERY),
    PARAMS,
)
@example(BASES[0], ["teams"], "a=1#frag", None)
@example(BASES[0], ["teams"], "a=1#frag", {"limit": 1000})
@example(BASES[0], ["teams"], "a=1", {})
@example(BASES[2], ["t 1", "%", "é"], "", {"page": "a/b c&d"})
def test_the_url_sent_is_the_one_httpx_merges(base, segments, query, params):
    path = api_path("/".join(segments) + ("" if query is None else "?" + query))
    expected = httpx_url(base, path, params)
    built = request_url(base + "/", path, params)
    assert built == expected
    assert str(built) == str(expected)
    assert built.raw_path == expected.raw_path


def test_a_list_call_keeps_its_query_in_order():
    url = request_url(
        "https://api.sandbox.test/v1/", "/orgs/org_acme/teams", {"limit": 1000, "page": "c 2"}
    )
    assert str(url) == "https://api.sandbox.test/v1/orgs/org_acme/teams?limit=1000&page=c+2"
