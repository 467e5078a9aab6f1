"""Blueprint history: every version a change replaced, its diff to another, and restoring one."""
