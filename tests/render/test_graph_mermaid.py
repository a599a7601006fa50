"""`docform graph` and the Mermaid rendering (render/structure.py, render/mermaid.py): valid node
ids, labels that cannot break the diagram, the tree the manifests describe, and the marks a plan
puts on it, also as the folded section of the Markdown plan."""

from __future__ import annotations

import re
from pathlib import Path

from docform.render.mermaid import ENTITIES, escape_label
from planning import apply, live_api, run, write_manifests

EXAMPLE = Path(__file__).parents[2] / "examples" / "acme" / "manifests"
NODE = re.compile(r"^  (\S+?)(\{\{|\[/|\(\[|\[\[|\(|\[)\"(.*)\"(\}\}|\\\]|/\]|\]\)|\]\]|\)|\])$")
EDGE = re.compile(r"^  (\S+) (-->|-\.->) (\S+)$")
VALID_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
MERMAID_KEYWORDS = {"end", "graph", "flowchart", "subgraph", "class", "classDef", "style", "click"}

CONTENT = """\
    organization: {id: org_acme, title: Acme}
    docform: {prune: {sections: true, siteSpaces: true}}
    collections:
      engineering: {title: Engineering}
      runbooks: {title: Runbooks, parent: engineering}
    spaces:
      handbook: {title: Handbook, collection: engineering}
      oncall: {title: On-call, collection: runbooks%s}
    sites:
      docs:
        id: site_docs
        sectionGroups: {guides: {title: Guides, sections: [start]}}
        sections:
          start: {title: Getting started, path: start, spaces: {main: {space: handbook, path: v1}}}
"""
OPS_SECTION = """\
          ops: {title: Operations, path: ops, spaces: {pager: {space: oncall, path: pager}}}
"""


def graph(directory: Path, sandbox: Path, *options: str) -> str:
    result = run(["graph", directory, *options], sandbox)
    assert result.exit_code == 0, result.output
    return result.stdout


def parse(diagram: str) -> tuple[dict[str, str], list[tuple[str, str, str]], dict[str, set[str]]]:
    """(label by node id, edges as (from, arrow, to), node ids by class) of a flowchart; fails
    on any line it does not understand, so a malformed statement cannot slip through."""
    lines = diagram.splitlines()
    assert lines[0] == "flowchart LR"
    nodes: dict[str, str] = {}
    edges: list[tuple[str, str, str]] = []
    classes: dict[str, set[str]] = {}
    for line in lines[1:]:
        if node := NODE.match(line):
            assert node.group(1) not in nodes, f"node defined twice: {line}"
            nodes[node.group(1)] = node.group(3)
        elif edge := EDGE.match(line):
            edges.append(edge.groups())
        elif line.startswith("  class "):
            _, ids, mark = line.split()
            classes[mark] = set(ids.split(","))
        else:
            assert line.startswith("  classDef "), f"unexpected line: {line!r}"
    return nodes, edges, classes


def unescape(label: str) -> str:
    back = {code: char for char, code in ENTITIES.items()}
    return re.sub(r"#\w+;", lambda m: back[m.group(0)], label)


def test_example_ids_are_valid_mermaid_and_every_node_hangs_from_the_organization(sandbox):
    nodes, edges, classes = parse(graph(EXAMPLE, sandbox))
    assert all(VALID_ID.match(i) and i not in MERMAID_KEYWORDS for i in nodes)
    assert not any(i[0] in "ox" for i in nodes if i != "org")
    parents = {child: parent for parent, arrow, child in edges if arrow == "-->"}
    assert set(parents) == set(nodes) - {"org"}

    def depth(node: str) -> int:
        return 0 if node == "org" else 1 + depth(parents[node])

    assert depth("n_site_devdocs_section_sdks_space_js") == 4  # site, group, section, site space
    assert depth("n_space_incident_response") == 4  # engineering > runbooks > incidents
    assert ("n_site_help_space_help", "-.->", "n_space_help_center") in edges
    assert classes == {}


def test_no_links_leaves_out_the_dotted_arrows(sandbox):
    _, edges, _ = parse(graph(EXAMPLE, sandbox, "--no-links"))
    assert {arrow for _, arrow, _ in edges} == {"-->"}


def test_titles_with_quotes_and_brackets_are_escaped_and_read_back_the_same(tmp_path, sandbox):
    title = 'Ledger "v2" [beta] (old) {x} <b>|a;b #1 `c` & d'
    write_manifests(
        tmp_path / "m",
        f"""\
        organization: {{id: org_acme}}
        spaces:
          ledger: {{title: '{title.replace("'", "''")}'}}
        """,
    )
    nodes, _, _ = parse(graph(tmp_path / "m", sandbox))
    label = nodes["n_space_ledger"]
    assert not set(re.sub(r"#\w+;", "", label)) & set('"[](){}<>|;`#')
    assert unescape(label) == title


def test_escape_label_keeps_one_short_line():
    assert escape_label("a\n  b\tc") == "a b c"
    assert escape_label("x" * 100) == "x" * 59 + "…"
    assert escape_label("#quot;") == "#35;quot#59;"


def test_names_that_sanitize_alike_get_distinct_ids(tmp_path, sandbox):
    write_manifests(
        tmp_path / "m",
        """\
        organization: {id: org_acme}
        collections:
          a-b: {title: Dash}
          a_b: {title: Underscore}
          end: {title: End}
        """,
    )
    nodes, _, _ = parse(graph(tmp_path / "m", sandbox))
    assert nodes == {
        "org": "org_acme",
        "n_collection_a_b": "Dash",
        "n_collection_a_b_2": "Underscore",
        "n_collection_end": "End",
    }


def test_plan_marks_added_changed_moved_and_removed(tmp_path, sandbox):
    manifests = write_manifests(tmp_path / "m", (CONTENT % "") + OPS_SECTION)
    apply(manifests, sandbox)
    oncall = next(
        s["id"]
        for s in live_api(sandbox, "GET", "/orgs/org_acme/spaces")["items"]
        if s["title"] == "On-call"
    )
    changed = CONTENT.replace("{title: Engineering}", "{title: Engineering, description: R&D}")
    changed = changed.replace("collection: runbooks%s", f"collection: engineering, id: {oncall}")
    write_manifests(manifests, changed)
    write_manifests(manifests, "spaces:\n  faq: {title: FAQ}\n", name="more.yaml")

    nodes, edges, classes = parse(graph(manifests, sandbox, "--plan"))

    assert classes["added"] == {"n_space_faq"}
    assert classes["changed"] == {"n_collection_engineering"}
    assert classes["moved"] == {"n_space_oncall"}
    removed_section = next(i for i in classes["removed"] if i.startswith("n_section_"))
    removed_site_space = next(i for i in classes["removed"] if i.startswith("n_siteSpace_"))
    assert len(classes["removed"]) == 2
    assert nodes[removed_section] == "- Operations"
    assert nodes[removed_site_space] == "- /pager"
    assert ("n_site_docs", "-->", removed_section) in edges
    assert (removed_section, "-->", removed_site_space) in edges
    assert (removed_site_space, "-.->", "n_space_oncall") in edges
    assert nodes["n_space_faq"] == "+ FAQ"
    assert nodes["n_collection_engineering"] == "~ Engineering"
    assert nodes["n_space_oncall"] == "#gt; On-call"
    assert ("n_collection_engineering", "-->", "n_space_oncall") in edges


def test_markdown_plan_folds_the_diagram_with_its_counts(tmp_path, sandbox):
    manifests = write_manifests(tmp_path / "m", CONTENT % "")
    result = run(["plan", manifests, "--markdown"], sandbox)
    assert result.exit_code == 0, result.output
    section = result.stdout[result.stdout.index("<details><summary>Structure") :]
    assert section.startswith("<details><summary>Structure (7 added)</summary>\n\n```mermaid\n")
    diagram = section.split("```mermaid\n", 1)[1].split("```", 1)[0]
    nodes, _, classes = parse(diagram)
    assert len(classes["added"]) == 7 and len(nodes) == 9  # the site and organization exist
    assert section.rstrip().endswith("</details>")


def test_markdown_plan_has_no_diagram_without_structure(tmp_path, sandbox):
    manifests = write_manifests(tmp_path / "m", "organization: {id: org_acme, title: Acme 2}\n")
    result = run(["plan", manifests, "--markdown"], sandbox)
    assert result.exit_code == 0, result.output
    assert "mermaid" not in result.stdout
