"""docform: a documentation service organization as YAML manifests, planned and applied."""

__version__ = "0.6.3"
