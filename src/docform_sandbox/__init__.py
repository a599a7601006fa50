"""A faithful, persistent emulator of the documentation service API (docs/sandbox.md), beside
docform rather than inside it: docform's core needs no web server, and this package plugs into
it through entry points (`docform_sandbox.plugin`): the ``sandbox:FILE`` API URL and the
``docform sandbox`` commands. Its own dependencies (Starlette, uvicorn) are docform's
``sandbox`` extra, so this package imports them only in the modules that serve."""
