"""Memory planners (`planners.py` chooses one by name) and what they share: access patterns,
gaps, placement, streaming. Nothing is imported here, so op specs can name their access
patterns without import cycles."""
