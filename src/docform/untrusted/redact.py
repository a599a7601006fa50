"""Keeping credentials out of everything docform prints, logs or raises.

Two kinds of secret can end up in text: the values docform holds (the API token, secrets a
manifest refers to), which the caller passes to `redact_text`, and credentials embedded in URLs
(``https://user:password@host/...`` or ``?access_token=...``), which are found and masked
wherever a URL appears. Masked parts read ``***`` so a message still shows where they were.
"""

from __future__ import annotations

import base64
import json
import logging
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from urllib.parse import parse_qsl, quote, quote_plus, urlencode, urlsplit, urlunsplit

MASK = "***"

# Query parameters that carry credentials in the URLs of common services and proxies.
SECRET_QUERY_NAMES = frozenset(
    {
        "token",
        "access_token",
        "private_token",
        "client_secret",
        "auth",
        "key",
        "api_key",
        "apikey",
        "password",
        "secret",
        "sig",
        "signature",
        "x-amz-signature",
        "x-amz-credential",
    }
)

_USER_INFO = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*://)[^/?#]*@")
_URL_IN_TEXT = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>`]+")
# A credential after "Bearer"/"Basic": 8+ token characters, not all letters (prose is left alone).
_BEARER = re.compile(
    r"\b(Bearer|Basic)\s+(?=[A-Za-z]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE
)


def redact_url(url: str) -> str:
    """``url`` with any user:password part and secret-looking query values replaced by ``***``.

    The whole user-info part is masked, not only the password: a token is often passed as the
    user name (``https://TOKEN@host``). A string that is not a URL comes back unchanged.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        # Malformed (``https://user:pw@[::1``), but its user-info may still be a credential.
        return _USER_INFO.sub(rf"\1{MASK}@", url)
    if not parts.scheme or not parts.netloc:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{MASK}@{netloc.rsplit('@', 1)[1]}"
    return urlunsplit(parts._replace(netloc=netloc, query=_redact_query(parts.query)))


def holds_credentials(url: str | None) -> bool:
    """Whether ``url`` carries something `redact_url` would mask."""
    return isinstance(url, str) and redact_url(url) != url


def _redact_query(query: str) -> str:
    if not query:
        return query
    pairs = parse_qsl(query, keep_blank_values=True)
    if not any(name.lower() in SECRET_QUERY_NAMES for name, _ in pairs):
        return query
    masked = [(n, MASK if n.lower() in SECRET_QUERY_NAMES else v) for n, v in pairs]
    return urlencode(masked, safe="*")


def redact_text(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every given secret, URL credential and bearer/basic credential masked.

    A secret is masked as it is and as a service may echo it: in another case, URL-encoded,
    JSON-escaped, base64-encoded (alone or inside a longer encoded text, as in a Basic
    credential), and a token-like secret also in pieces of half its length or more, reversed,
    and with up to three other characters between its letters.
    """
    pattern = _secrets_pattern(tuple(sorted({s for s in secrets if s})))
    if pattern is not None:
        text = pattern.sub(MASK, text)
    text = _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)), text)
    return _BEARER.sub(lambda m: f"{m.group(1)} {MASK}", text)


@lru_cache(maxsize=64)
def _secrets_pattern(secrets: tuple[str, ...]) -> re.Pattern[str] | None:
    if not secrets:
        return None
    forms = {form for secret in secrets for form in _echoed_forms(secret)}
    forms.update(secrets)
    spelled = {form for secret in secrets for form in _spelled_out(secret)}
    # Longest first, so a secret that contains another one is masked whole; a form spelled
    # out with letters apart before the same form written whole.
    alternatives = sorted(
        [(-len(form), 0, _spaced(form)) for form in spelled]
        + [(-len(form), 1, re.escape(form)) for form in forms]
    )
    return re.compile("|".join(regex for _, _, regex in alternatives), re.IGNORECASE)


_SPACING = "[^0-9A-Za-z]{0,3}"
"""What a service may put between the letters of an echoed secret (``t o k e n``, ``t-o-k``)."""


def _spelled_out(secret: str) -> list[str]:
    """The token-like ``secret`` and its reverse, which a service may echo letter-spaced."""
    return [secret, secret[::-1]] if _token_like(secret) else []


def _spaced(form: str) -> str:
    return _SPACING.join(map(re.escape, form))


# Pieces of a token-like secret are masked when a service splits its echo; longer secrets
# (a certificate, a URL) are split by `secret_fragments` along their own structure instead.
_MAX_SPLIT_SECRET = 256


def _echoed_forms(secret: str) -> set[str]:
    """How a service may echo ``secret`` besides verbatim (case is ignored when matching)."""
    forms = {
        quote(secret, safe=""),
        quote(secret),
        quote_plus(secret),
        json.dumps(secret)[1:-1],
        json.dumps(secret)[1:-1].replace("/", "\\/"),
        *_base64_forms(secret),
    }
    if _token_like(secret):
        piece = max(FRAGMENT_MIN_CHARS, -(-len(secret) // 2))
        for spelled in (secret, secret[::-1]):
            forms.update(spelled[i : i + piece] for i in range(len(spelled) - piece + 1))
    return {form for form in forms if len(form) >= FRAGMENT_MIN_CHARS}


def _token_like(secret: str) -> bool:
    return (
        len(secret) <= _MAX_SPLIT_SECRET
        and "://" not in secret
        and not any(ch.isspace() for ch in secret)
    )


def _base64_forms(secret: str) -> Iterator[str]:
    """The base64 characters that only ``secret`` decides, at each of the three byte offsets
    it may start at inside a longer encoded text (``user:TOKEN``), in both alphabets."""
    raw = secret.encode()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode()
        core = encoded[-(-offset * 8 // 6) : (offset + len(raw)) * 8 // 6]
        yield core
        yield core.replace("+", "-").replace("/", "_")


# Parts of a secret shorter than this are not masked on their own: they would mask ordinary
# words (a URL's "json" parameter, a certificate's "-----END").
FRAGMENT_MIN_CHARS = 8


def secret_fragments(values: Iterable[str | None]) -> list[str]:
    """Each secret value and the parts of it a service may echo on their own: every line of a
    multi-line secret (a certificate), the user-info and query values of a URL."""
    fragments: set[str] = set()
    for value in values:
        if not value:
            continue
        fragments.add(value)
        fragments.update(line.strip() for line in value.splitlines())
        fragments.update(_url_credentials(value.strip()))
    return sorted(f for f in fragments if len(f) >= FRAGMENT_MIN_CHARS)


def _url_credentials(value: str) -> list[str]:
    try:
        parts = urlsplit(value)
    except ValueError:
        return []
    if not parts.scheme or not parts.netloc:
        return []
    found = [v for _, v in parse_qsl(parts.query, keep_blank_values=True)]
    if "@" in parts.netloc:
        user_info = parts.netloc.rsplit("@", 1)[0]
        found += [user_info, *user_info.split(":", 1)]
    return found


_HIDDEN: set[str] = set()


def hide_in_logs(values: Iterable[str]) -> None:
    """Mask ``values`` (secrets the service answered, such as a link invite's id, that a call's
    path must hold) in every line docform's API log writes from now on."""
    _HIDDEN.update(value for value in values if value)


class HiddenValues(logging.Filter):
    """Masks what `hide_in_logs` was given in the records of the logger it is added to."""

    def filter(self, record: logging.LogRecord) -> bool:
        if _HIDDEN:
            message = record.getMessage()
            masked = redact_text(message, _HIDDEN)
            if masked != message:
                record.msg, record.args = masked, ()
        return True
