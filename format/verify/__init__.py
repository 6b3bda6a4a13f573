"""Checking a store against the spec (`mem verify`) and repairing what can be repaired (`mem repair`)."""
