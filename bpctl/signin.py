"""Signing in and out (a token kept, never the password), and shell completion."""

import contextlib
import getpass
import io
import os
import sys
import warnings

import click
from click.shell_completion import get_completion_class

from bpctl import tokens
from bpctl.common import cli, note, pass_service
from bpctl.errors import Misused, Refused
from bpctl.session import Session, basic, bearer
from bpctl.sso import provider_token


@cli.command(short_help="Sign in; keep a token (never the password).")
@click.option("-u", "--username", envvar="BPCTL_USERNAME", help="Your username (BPCTL_USERNAME); asked if not given.")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
@click.option("--sso", is_flag=True, help="Sign in through the service's identity provider, in a browser.")
@pass_service
def login(service, username, password_stdin, sso):
    """Sign in, and keep a token for this service (never the password).

    The password comes from standard input (--password-stdin), else BPCTL_PASSWORD, else a prompt
    that does not echo: never from the command line, where other users see it. With --sso, bpctl
    shows an address and a code to confirm in a browser, signed in at the identity provider.
    """
    url = service.url
    if sso:
        signed_in = Session(url, bearer(provider_token(url))).send("POST", "/tokens")
        username = Session(url, bearer(signed_in["token"])).send("GET", "/users/me")["username"]
        _keep(url, signed_in, username)
        return
    if username is None:
        username = click.prompt("Username")
    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    elif os.environ.get("BPCTL_PASSWORD"):
        password = os.environ["BPCTL_PASSWORD"]
    else:
        try:
            # without a terminal, Python's getpass writes a warning that the input may echo to
            # standard error, then reads standard input: a script gets the reason alone
            with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
                warnings.simplefilter("ignore", getpass.GetPassWarning)
                password = click.prompt("Password", hide_input=True)
        except click.Abort:
            raise Misused("no password: set BPCTL_PASSWORD, or pipe it in with --password-stdin.") from None
    signed_in = Session(url, basic(username, password)).send("POST", "/tokens")
    _keep(url, signed_in, username)


def _keep(url, signed_in, username):
    tokens.save(url, {"token": signed_in["token"], "expiresAt": signed_in["expiresAt"], "username": username})
    note(f"Signed in to {url} as {username} until {signed_in['expiresAt']} (token kept in {tokens.path()}).")


@cli.command(short_help="Revoke and forget the kept token.")
@click.option("--everywhere", is_flag=True, help="Revoke every token of yours, wherever it was issued.")
@pass_service
def logout(service, everywhere):
    """Revoke the token `bpctl login` kept for this service, and forget it; with --everywhere,
    every token of yours at this service (one that leaked, another machine's)."""
    url = service.url
    stored = tokens.load().get(url)
    if stored is None:
        note(f"Not signed in to {url}.")
        return
    try:
        Session(url, bearer(stored["token"])).send("DELETE", "/tokens?all=true" if everywhere else "/tokens")
    except Refused as exc:
        if exc.status != 401:  # a 401: it had expired or was revoked already
            raise
    tokens.forget(url)
    note(f"Signed out of {url}: {'every token of yours is' if everywhere else 'the token is'} revoked.")


@cli.command(short_help="Print the shell code for completion.")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell):
    """Print the shell code that completes bpctl's commands, e.g. `eval "$(bpctl completion bash)"`."""
    complete = get_completion_class(shell)(cli, {}, "bpctl", "_BPCTL_COMPLETE")
    click.echo(complete.source())
