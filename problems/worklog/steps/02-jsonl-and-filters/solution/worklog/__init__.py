"""worklog: summarize work logs."""
