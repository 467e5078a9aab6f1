"""How bpctl fails: each failure with its exit code (2 misused, 3 refused by the service, 4 the
service not reached or failed; 1 is kept for "does not fit") and the lines a person reads."""

import click


class Refused(click.ClickException):
    """The service said no (a 4xx): its words, then each problem with its place."""

    exit_code = 3

    def __init__(self, message, lines=(), status=None):
        super().__init__(message)
        self.lines, self.status, self.problem = list(lines), status, {}

    def show(self, file=None):
        click.echo(f"bpctl: {self.message}", err=True)
        for line in self.lines:
            click.echo(f"  {line}", err=True)


class Unreachable(Refused):
    """The service could not be reached, did not answer in time, or failed (a 5xx)."""

    exit_code = 4


class Misused(Refused):
    """What the caller asked for cannot be done as asked (an ambiguous name, a missing option)."""

    exit_code = 2


def problem_lines(errors, place=""):
    """`errors` of a problem body, nested or not, as "place: message" lines."""
    if isinstance(errors, dict):
        for key, value in errors.items():
            yield from problem_lines(value, f"{place}.{key}" if place else str(key))
    elif isinstance(errors, list) and all(isinstance(item, str) for item in errors):
        for message in errors:
            yield f"{place}: {message}" if place else message
    elif isinstance(errors, list):
        for index, value in enumerate(errors):
            yield from problem_lines(value, f"{place}.{index}")
    else:
        yield f"{place}: {errors}"
