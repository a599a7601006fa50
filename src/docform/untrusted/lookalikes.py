"""Text that passes for other text: an email address written with letters of two scripts
(``\u0430da@acme.test``, a Cyrillic ``a``), or with compatibility forms (fullwidth letters).

Reviewers read a manifest, not its code points: such an address grants access to someone else
than the one they approve. The Unicode data of what looks like what, and of which script a
character belongs to, comes from confusable_homoglyphs (Unicode's confusables.txt and
Scripts.txt); NFKC says which characters are compatibility forms of others. An address in one
script with no mixing (a Cyrillic name, ``jos\u00e9@acme.test``) is that script's own name and
is kept.
"""

from __future__ import annotations

import re
import unicodedata

_PARTS = re.compile(r"[@.]")
# Invisible and direction-changing characters (zero-width spaces and joiners, bidi embeddings,
# overrides and isolates, the BOM): in an address they make one look like another in review.
INVISIBLE_CHARACTERS = r"\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
_CONTROL = re.compile(rf"[{INVISIBLE_CHARACTERS}\x00-\x1f\x7f-\x9f\u2028\u2029]")
_CONTROL_BUT_LINE_END = re.compile(
    rf"[{INVISIBLE_CHARACTERS}\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]"
)
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_controls(text: str) -> str:
    """``text`` with each control, invisible or direction-changing character written as an
    escape (``\\r``, ``\\u202e``), so that what is shown is what is there: a service's error
    text or a live title can then neither move the cursor nor start a line of its own (a fake
    "Plan: 0 to create")."""
    return _CONTROL.sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    return _SHORT_ESCAPES.get(found.group(0), f"\\u{ord(found.group(0)):04x}")


_MISREAD = re.compile(rf"[{INVISIBLE_CHARACTERS}\x7f-\x9f\u2028\u2029]")


def misread_when_raw(text: str) -> bool:
    """Whether ``text`` holds a character a file written in UTF-8 shows as something else, or
    not at all, and YAML does not escape (it even reads a raw NEL back as a space): an
    invisible or direction-changing character, a C1 control, a Unicode line break."""
    return _MISREAD.search(text) is not None


def escape_for_terminal(text: str) -> str:
    """`escape_controls` but for line ends: text docform laid out in lines (a rendered plan,
    an error listing problems), whose every part from the service or a manifest may still
    hold a carriage return, an escape sequence or a direction change."""
    return _CONTROL_BUT_LINE_END.sub(_escape, text)


def deceptive_text(text: str) -> str | None:
    """Why ``text`` (an email address, a domain) may pass for another, or None."""
    if text.isascii():
        return None
    normal = unicodedata.normalize("NFKC", text)
    if normal != text:
        return (
            f"writes '{shown(normal)}' with look-alike forms of its characters (fullwidth, "
            "ligatures, styled letters), which make one address look like another; write it "
            "plainly"
        )
    # Unicode's tables load only for text that needs them: every command escapes its output
    # here, few check an address.
    from confusable_homoglyphs import categories, confusables

    for part in _PARTS.split(text):
        if confusables.is_dangerous(part):
            scripts = ", ".join(sorted(s.title() for s in categories.unique_aliases(part)))
            return (
                f"mixes scripts ({scripts}) in '{shown(part)}', with letters that look like "
                "letters of the other, so it looks like another address; write it in one script"
            )
    return None


def shown(text: str) -> str:
    """``text`` with every non-ASCII character written as ``\\u0430``: what is there, shown."""
    return "".join(ch if ch.isascii() else f"\\u{ord(ch):04x}" for ch in text)
