"""``docform export``: manifests written from a live organization, to start a repository.

`docform.workflow.export.export_organization` reads the organization read-only (the same reading as
a plan), asks each kind for its live objects as manifest entries (`Kind.export_entry`), names
them (`names`), resolves references and nesting (`document`) and writes the files (`writer`).
This package imports nothing on purpose: the kinds import `docform.export.model`.
"""
