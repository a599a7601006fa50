"""`docform.kind_framework.document_diff`: the parts of a settings document that differ, by
path, lists in order unless order-free. Property: changing any one leaf of any document
reports exactly that leaf's path (or its list's, where the list differs whole), and shuffling
an order-free list reports nothing."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.kind_framework.document_diff import differing_parts, same_value

FACES = [{"weight": w, "sources": [{"url": f"https://f.test/{w}.woff2"}]} for w in (400, 700)]
FONT = {"id": "f", "custom": True, "fontFamily": "F", "fontFaces": FACES}
ORDER_FREE = frozenset({"styling.font.fontFaces"})


def test_a_color_is_named_by_its_path() -> None:
    before = {"light": "#346DDB", "dark": "#346DDB"}
    after = {"light": "#0B5FFF", "dark": "#346DDB"}
    assert differing_parts("styling.primaryColor", before, after) == [
        ("styling.primaryColor.light", "#346DDB", "#0B5FFF")
    ]


def test_an_item_of_a_list_of_mappings_is_named_by_its_index() -> None:
    before = [{"title": "Docs", "links": []}, {"title": "Blog", "links": []}]
    after = [{"title": "Docs", "links": []}, {"title": "News", "links": []}]
    assert differing_parts("header.links", before, after) == [
        ("header.links[1].title", "Blog", "News")
    ]


def test_a_list_that_changes_length_or_holds_plain_values_differs_whole() -> None:
    assert differing_parts("pageActions.items", ["pdf"], ["markdown", "pdf"]) == [
        ("pageActions.items", ["pdf"], ["markdown", "pdf"])
    ]
    assert differing_parts("ai.suggestions", ["a", "b"], ["b", "a"]) == [
        ("ai.suggestions", ["a", "b"], ["b", "a"])
    ]


def test_an_order_free_list_compares_as_a_collection() -> None:
    shuffled = {**FONT, "fontFaces": list(reversed(FACES))}
    assert same_value("styling.font", FONT, shuffled, ORDER_FREE)
    assert not same_value("styling.font", FONT, shuffled)
    changed = {**FONT, "fontFaces": [FACES[1], {**FACES[0], "weight": 300}]}
    assert differing_parts("styling.font", FONT, changed, ORDER_FREE) == [
        ("styling.font.fontFaces", FACES, changed["fontFaces"])
    ]


def test_an_added_or_removed_key_reads_none_on_its_missing_side() -> None:
    assert differing_parts("footer", {"groups": []}, {"groups": [], "copyright": "Acme"}) == [
        ("footer.copyright", None, "Acme")
    ]
    assert differing_parts("announcement", {"enabled": True}, None) == [
        ("announcement", {"enabled": True}, None)
    ]


class Meaningful:
    """A wanted value with an equality of its own (a null that means "the site's value")."""

    def __eq__(self, other: object) -> bool:
        return other == "site"

    __hash__ = None  # type: ignore[assignment]


def test_a_value_with_its_own_meaning_differs_whole() -> None:
    wanted = Meaningful()
    assert differing_parts("styling.theme", "bold", wanted) == [("styling.theme", "bold", wanted)]
    assert not same_value("styling.theme", "bold", wanted)


LEAF = st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b", "#fff"]), st.booleans())
KEYS = st.sampled_from(["title", "url", "light", "dark", "style"])
DOCUMENTS = st.recursive(
    LEAF,
    lambda inner: st.one_of(
        st.dictionaries(KEYS, inner, min_size=1, max_size=3),
        st.lists(st.fixed_dictionaries({"title": inner}), min_size=1, max_size=3),
    ),
    max_leaves=12,
)


def leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in leaves(v, (*path, k))]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in leaves(v, (*path, i))]
    return [path]


def rendered(name: str, path: tuple[Any, ...]) -> str:
    return name + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path)


@settings(max_examples=fuzz_examples(100))  # quick: hypothesis' default count
@given(document=st.dictionaries(KEYS, DOCUMENTS, min_size=1, max_size=4), data=st.data())
def test_one_changed_leaf_is_the_one_part_reported(document: dict[str, Any], data: Any) -> None:
    path = data.draw(st.sampled_from(leaves(document)))
    changed = copy.deepcopy(document)
    at = changed
    for key in path[:-1]:
        at = at[key]
    at[path[-1]] = "changed"
    assert differing_parts("doc", document, changed) == [
        (rendered("doc", path), _at(document, path), "changed")
    ]
    assert not same_value("doc", document, changed)
    assert same_value("doc", document, copy.deepcopy(document))


@settings(max_examples=fuzz_examples(100))  # quick: hypothesis' default count
@given(faces=st.permutations(FACES * 2))
def test_shuffling_an_order_free_list_changes_nothing(faces: list[dict[str, Any]]) -> None:
    before = {"styling": {"font": {**FONT, "fontFaces": FACES * 2}}}
    after = {"styling": {"font": {**FONT, "fontFaces": faces}}}
    assert same_value("styling", before["styling"], after["styling"], ORDER_FREE)
    assert differing_parts("styling", before["styling"], after["styling"], ORDER_FREE) == []


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value
