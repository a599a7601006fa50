"""One module per managed kind, and nothing else: its manifest model, natural key, live reading,
calls and declaration. `docform.kind_registry` finds every module here."""
