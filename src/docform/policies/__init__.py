"""Policies: an organization's own rules over its plans, written in CEL (docs/policies.md)."""
