"""The root of docform's exceptions: each area raises its own subclass with an actionable message.

The CLI prints any `DocformError` as ``Error: <message>`` and exits 1; anything else is a bug.
"""


class DocformError(Exception):
    """A problem the user can act on; ``str()`` says what is wrong, where, and what to do."""
