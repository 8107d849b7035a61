"""Errors that the CLI turns into a one-line message and exit code 2, and the suggestion such a
message may end with."""

import difflib


class InputError(ValueError):
    """Bad input from a user: a file, a field or an option. The message is one line and names
    the file (or option), the field and the reason."""


def did_you_mean(word: str, choices) -> str:
    """`` (did you mean 'x'?)`` when a close match exists, else an empty string."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""
