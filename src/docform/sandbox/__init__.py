"""A faithful, persistent emulator of the documentation service API (docs/service.md, README)."""

from docform.sandbox.app import Sandbox, SandboxConfig, create_app
from docform.sandbox.store import Store

__all__ = ["Sandbox", "SandboxConfig", "Store", "create_app"]
