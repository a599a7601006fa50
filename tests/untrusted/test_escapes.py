"""Text shown in a terminal: escaped line by line, its own line ends kept."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.untrusted.lookalikes import escape_controls, escape_for_terminal

CONTROLS = st.characters(codec="utf-8", categories=["Cc", "Cf", "Zl", "Zp"])


@settings(max_examples=fuzz_examples(200))
@given(st.lists(st.one_of(st.text(max_size=5), CONTROLS, st.just("\n")), max_size=12))
def test_text_laid_out_in_lines_is_each_line_escaped(parts: list[str]) -> None:
    text = "".join(parts)
    lines = [escape_controls(line) for line in text.split("\n")]
    assert escape_for_terminal(text) == "\n".join(lines)
    assert escape_for_terminal(text).count("\n") == text.count("\n")
