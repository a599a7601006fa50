"""One module per managed kind: its manifest model and natural key (live reading, diffing and
API calls join them later). `base` and `fields` hold what the kinds share."""
