"""docform.untrusted.redact: credentials never reach a message."""

from __future__ import annotations

import base64
import json
import string
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.untrusted.redact import MASK, redact_text, redact_url


def test_redact_url_masks_user_and_password() -> None:
    assert redact_url("https://user:hunter2@api.example.test/v1/orgs") == (
        "https://***@api.example.test/v1/orgs"
    )


def test_redact_url_masks_a_token_given_as_user_name() -> None:
    assert redact_url("https://ghp_secret123@git.example.test/repo.git") == (
        "https://***@git.example.test/repo.git"
    )


def test_redact_url_masks_secret_query_values_and_keeps_the_others() -> None:
    assert redact_url("https://example.test/a?page=2&access_token=abc&Signature=xyz") == (
        "https://example.test/a?page=2&access_token=***&Signature=***"
    )


def test_redact_url_leaves_a_url_without_credentials_unchanged() -> None:
    url = "https://api.example.test:8443/v1/orgs?page=abc&limit=1000"
    assert redact_url(url) == url


def test_redact_url_leaves_a_non_url_unchanged() -> None:
    assert redact_url("sandbox:.docform/demo.sqlite") == "sandbox:.docform/demo.sqlite"


def test_redact_text_masks_the_given_secrets() -> None:
    text = "token tok_abcdef123 was refused (tok_abcdef123)"
    assert redact_text(text, ["tok_abcdef123"]) == "token *** was refused (***)"


def test_redact_text_masks_a_longer_secret_whole_when_it_contains_a_shorter_one() -> None:
    assert redact_text("key=abcd1234xyz", ["abcd", "abcd1234xyz"]) == "key=***"


def test_redact_text_ignores_empty_and_missing_secrets() -> None:
    assert redact_text("nothing to hide", ["", None]) == "nothing to hide"


def test_redact_text_masks_credentials_in_urls_inside_text() -> None:
    text = "cannot reach https://bot:pa55@proxy.example.test:3128/v1 (refused)"
    assert redact_text(text) == "cannot reach https://***@proxy.example.test:3128/v1 (refused)"


def test_redact_text_masks_authorization_header_values() -> None:
    text = "sent Authorization: Bearer eyJhbGciOi.J9.x and Basic dXNlcjpodW50ZXIy"
    assert redact_text(text) == "sent Authorization: Bearer *** and Basic ***"


def test_redact_text_leaves_prose_about_bearer_tokens_alone() -> None:
    text = "missing bearer token in the Authorization header"
    assert redact_text(text) == text


SECRET = "tok_Secret/Value+42=ok"


@pytest.mark.parametrize(
    "echo",
    [
        quote(SECRET, safe=""),
        quote(SECRET, safe="").lower(),
        quote_plus(SECRET),
        base64.b64encode(SECRET.encode()).decode(),
        base64.urlsafe_b64encode(SECRET.encode()).decode().rstrip("="),
        base64.b64encode(f"user:{SECRET}".encode()).decode(),
        base64.b64encode(f"ab{SECRET}".encode()).decode(),
        SECRET.upper(),
        json.dumps(SECRET)[1:-1].replace("/", "\\/"),
        f"{SECRET[:11]} ... {SECRET[11:]}",
    ],
    ids=["url", "url-lower", "url-plus", "base64", "base64url", "basic", "base64-shifted",
         "upper", "json", "split"],
)  # fmt: skip
def test_redact_text_masks_the_common_encodings_of_an_echoed_secret(echo: str) -> None:
    masked = redact_text(f"the service said: {echo}.", [SECRET])
    assert MASK in masked
    assert not _holds_a_part_of(masked, SECRET), masked


def _holds_a_part_of(text: str, secret: str) -> bool:
    """Whether ``text`` still holds 6 or more characters in a row of ``secret`` or of one of
    the encodings the test feeds (compared without case)."""
    forms = {secret, quote(secret, safe=""), base64.b64encode(secret.encode()).decode()}
    lowered = text.lower()
    return any(form[i : i + 6].lower() in lowered for form in forms for i in range(len(form) - 5))


@settings(max_examples=fuzz_examples(30), deadline=None)
@given(
    secret=st.text(alphabet=string.ascii_letters + string.digits + "-_./+=:@", min_size=12,
                   max_size=60),
    prefix=st.text(alphabet=string.ascii_letters + ": ", max_size=5),
    encode=st.sampled_from(["url", "base64", "base64url", "upper", "lower", "reversed",
                            "spaced", "dashed-reversed"]),
)  # fmt: skip
def test_an_encoded_secret_never_survives_redaction(secret: str, prefix: str, encode: str) -> None:
    raw = prefix + secret
    echo = {
        "url": quote(raw, safe=""),
        "base64": base64.b64encode(raw.encode()).decode(),
        "base64url": base64.urlsafe_b64encode(raw.encode()).decode(),
        "upper": raw.upper(),
        "lower": raw.lower(),
        "reversed": raw[::-1],
        "spaced": " ".join(raw),
        "dashed-reversed": " - ".join(raw[::-1]),
    }[encode]
    masked = redact_text(f"refused: {echo} (400)", [secret])
    assert MASK in masked
    if encode in ("upper", "lower"):
        assert secret.lower() not in masked.lower()
    elif encode == "url":
        assert quote(secret, safe="").lower() not in masked.lower()
    elif encode in ("reversed", "spaced", "dashed-reversed"):
        letters = "".join(ch for ch in masked.lower() if ch.isalnum())
        spelled = "".join(ch for ch in secret.lower() if ch.isalnum())
        assert spelled not in letters and spelled[::-1] not in letters


def test_redact_text_leaves_short_words_that_match_no_secret_alone() -> None:
    assert redact_text("team platform matches nothing", [SECRET]) == (
        "team platform matches nothing"
    )
