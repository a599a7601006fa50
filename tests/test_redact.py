"""docform.redact: credentials never reach a message."""

from __future__ import annotations

from docform.redact import redact_text, redact_url


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
