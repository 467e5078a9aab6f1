"""Sources followed from git."""
