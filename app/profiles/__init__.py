"""Profiles: named sets of resource caps; at most one per owner is the default."""
