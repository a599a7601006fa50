"""The manifest entries' model, below the kinds and the manifest reader: what every entry
shares (`entry`: location, name, binding, identity fields) and the field types several kinds
use (`fields`: names, references, roles, secrets, merge rules)."""
