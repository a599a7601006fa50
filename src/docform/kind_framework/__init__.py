"""What the kinds are built with: a kind's declaration, the plain REST kind, and the pieces
several kinds share for planning, exporting and ordering. `docform.kind_registry`, a floor
above the kinds, finds every kind in `docform.kinds`."""
