"""Errors that the CLI turns into a one-line message and exit code 2."""


class InputError(ValueError):
    """Bad input from a user: a file, a field or an option. The message is one line and names
    the file (or option), the field and the reason."""
