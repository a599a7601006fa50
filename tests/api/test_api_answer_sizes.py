"""The size cap holds for every answer however it is framed (api/limits.py): declared with a
Content-Length or not, compressed or not, and declaring less than it sends (an in-process
transport enforces no framing). An answer within the cap reads as its JSON; a larger one is
refused, naming the size it declared when that is already too much (over a socket, a body sent
in chunks is capped whatever length it declares: test_api_answer_limits.py)."""

from __future__ import annotations

import asyncio
import gzip
import json
import zlib

import httpx
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.api import ApiClient, ApiTransportError
from docform.api.limits import AnswerLimits

CAP = 200
TOKEN = "answer-sizes-test-token"
ENCODINGS = {"identity": lambda b: b, "gzip": gzip.compress, "deflate": zlib.compress}


def answered(body: bytes, headers: dict[str, str]) -> object:
    """What a GET returns (or the error it raises) for an answer of ``body`` with ``headers``."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=headers, stream=httpx.ByteStream(body))

    async def call() -> object:
        limits = AnswerLimits(max_answer_bytes=CAP)
        transport = httpx.MockTransport(handler)
        async with ApiClient("https://api.test", TOKEN, transport=transport, limits=limits) as c:
            return await c.get("/orgs/o")

    try:
        return asyncio.run(call())
    except ApiTransportError as exc:
        return str(exc)


@settings(max_examples=fuzz_examples(60), deadline=None)
@given(
    st.text(st.sampled_from('ab0 é\\"'), max_size=300),
    st.sampled_from(sorted(ENCODINGS)),
    st.sampled_from(["honest", "absent", "short"]),
)
@example("x" * 300, "identity", "short")
@example("0" * 5000, "gzip", "honest")
@example("x" * 150, "identity", "honest")
def test_an_answer_reads_as_its_json_within_the_cap_and_is_refused_past_it(
    text, encoding, declared
):
    answer = {"id": "o", "title": text}
    decoded = json.dumps(answer).encode()
    sent = ENCODINGS[encoding](decoded)
    headers = {"content-type": "application/json"}
    if encoding != "identity":
        headers["content-encoding"] = encoding
    if declared != "absent":
        headers["content-length"] = str(len(sent) if declared == "honest" else len(sent) // 2)
    got = answered(sent, headers)
    if declared == "honest" and len(sent) > CAP:
        assert f"the answer is larger than {CAP / 2**20:g} MiB (declares {len(sent)} bytes)" in got
    elif len(decoded) > CAP:
        assert f"the answer is larger than {CAP / 2**20:g} MiB (grew past that)" in got
    else:
        assert got == answer


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_a_small_compressed_answer_unpacking_past_the_cap_is_refused(encoding):
    sent = ENCODINGS[encoding](b'{"title": "' + b"0" * 100_000 + b'"}')
    headers = {"content-encoding": encoding, "content-length": str(len(sent))}
    assert len(sent) < CAP
    assert "(grew past that)" in answered(sent, headers)
