"""How long a Markdown text may be where a workflow posts it (a pull-request comment, an issue
body). The command line shows the default in ``--help``, so it lives apart from the renderers."""

GITHUB_LIMIT = 65_536
DEFAULT_LIMIT = 64_000
"""GitHub's limit less room for what a workflow adds around the text (a marker, a footer)."""
