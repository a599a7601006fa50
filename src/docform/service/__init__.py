"""The documentation service as docform knows it: its documents and the shapes of its answers,
derived from the service's published definition."""
