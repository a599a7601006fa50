"""The comments around an entry removed from a round-trip YAML mapping (`docform.manifest.edit`).

ruamel.yaml keeps the lines between two entries on the last value of the first: the blank
lines and comments leading to the next entry (kept when an entry goes), then the comment lines
right above it (its header, removed with it). The lines above a mapping's first entry live on
the mapping and on the key holding it.
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.tokens import CommentToken

Key = str | int


def drop_first_header(holder: CommentedMap, outer: tuple[CommentedMap, str] | None) -> None:
    """The comment lines above a mapping's first entry are kept with the mapping (and the key
    ``outer`` names, holding it): those right above the entry go with it."""
    lists = [holder.ca.comment[1] if holder.ca.comment else None]
    if outer is not None:
        slots = outer[0].ca.items.get(outer[1])
        lists.append(slots[3] if slots and len(slots) > 3 else None)
    for tokens in {id(t): t for t in lists if isinstance(t, list)}.values():
        while tokens and tokens[-1].value.strip().startswith("#"):
            tokens.pop()


def _last_leaf(node: Any) -> tuple[Any, Key] | None:
    """The container and key of the innermost last value of a block ``node``."""
    found = None
    while _block(node):
        key: Key = _own_keys(node)[-1] if isinstance(node, CommentedMap) else len(node) - 1
        found = (node, key)
        node = node[key]
    return found


def _block(node: Any) -> bool:
    if isinstance(node, CommentedMap):
        return bool(node._ok) and not node.fa.flow_style()
    return isinstance(node, CommentedSeq) and bool(node) and not node.fa.flow_style()


def _own_keys(mapping: CommentedMap) -> list[Key]:
    """The keys ``mapping`` writes itself, in order (not those it merges with ``<<``)."""
    return [key for key in mapping if key in mapping._ok]


def _tail_slot(container: Any) -> int:
    return 2 if isinstance(container, CommentedMap) else 0


def take_tail(node: Any) -> CommentToken | None:
    leaf = _last_leaf(node)
    if leaf is None:
        return None
    container, key = leaf
    slots = container.ca.items.get(key)
    if not slots:
        return None
    slot = _tail_slot(container)
    token: CommentToken | None = slots[slot]
    if token is None:
        return None
    own, _, rest = token.value.partition("\n")
    if not own.strip():  # no end-of-line comment of its own: all of it leads to the next entry
        return token
    return CommentToken("\n" + rest, token.start_mark, None) if rest else None


def drop_header_lines(holder: CommentedMap, previous: str) -> None:
    leaf = _last_leaf(holder[previous])
    if leaf is None:
        return  # after a one-line value, the lines above an entry are its own (removed)
    container, key = leaf
    slots = container.ca.items.get(key)
    slot = _tail_slot(container)
    if not slots or slots[slot] is None:
        return
    lines = slots[slot].value.split("\n")
    while len(lines) > 1 and lines[-2].strip().startswith("#"):
        del lines[-2]
    slots[slot].value = "\n".join(lines)


def append_tail(holder: CommentedMap, previous: str, tail: CommentToken | None) -> None:
    if tail is None:
        return
    leaf = _last_leaf(holder[previous])
    container, key = leaf if leaf is not None else (holder, previous)
    slots = container.ca.items.setdefault(key, [None, None, None, None])
    slot = _tail_slot(container)
    current = slots[slot]
    if current is None:
        text = tail.value if tail.value.startswith("\n") else "\n" + tail.value
        slots[slot] = CommentToken(text, tail.start_mark, None)
    else:
        current.value = current.value.rstrip(" ") + tail.value.lstrip("\n")


def leading_comments(tail: CommentToken | None) -> list[str]:
    """What a removed first entry's tail holds for the next one: its comment lines, if any
    (the blank lines before the first entry are the section's own)."""
    if tail is None:
        return []
    lines = tail.value.split("\n")[1:]
    return [line.strip().removeprefix("#").removeprefix(" ") for line in lines if line.strip()]


def set_header(holder: CommentedMap, key: str, comments: list[str], column: int) -> None:
    if comments:
        holder.yaml_set_comment_before_after_key(key, before="\n".join(comments), indent=column)
