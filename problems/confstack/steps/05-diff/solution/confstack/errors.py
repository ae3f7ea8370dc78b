"""Errors reported to the user."""


class ConfigError(Exception):
    """A file that cannot be read or is invalid; exits with code 1."""


class NotFound(Exception):
    """A key that does not exist; exits with code 3."""
