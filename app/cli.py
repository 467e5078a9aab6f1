"""`flask users ...`: account management from the shell, for the first admin and for recovery.

Changes take effect in every worker within USER_CACHE_SECONDS (1 s), the longest a worker keeps
its copy of a user record.
"""

import click
import marshmallow as ma
from flask import current_app
from flask.cli import AppGroup
from pymongo.errors import DuplicateKeyError

from app import migrations
from app.access.tokens import store as tokens
from app.access.users import NoSuchUser, UsernameTaken
from app.access.users import store as users
from app.model.accounts import ROLES
from app.storage.database import get_db

users_cli = AppGroup("users", help="Manage user accounts.")


def _messages(exc):
    if isinstance(exc.messages, dict):
        return "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.messages.items())
    return " ".join(exc.messages)


def _run(action, *args):
    try:
        action(*args)
    except ma.ValidationError as exc:
        raise click.ClickException(_messages(exc)) from None
    except UsernameTaken:
        raise click.ClickException(f"the username {args[0]!r} is taken") from None
    except NoSuchUser:
        raise click.ClickException(f"no user {args[0]!r}") from None


@users_cli.command("create")
@click.argument("username")
@click.option("--role", type=click.Choice(ROLES), default="member", show_default=True)
@click.password_option(help="Prompted for when not given.")
def create_user(username, role, password):
    """Create a user; the password is prompted for, twice."""
    _run(users.create, username, password, role)
    click.echo(f"created {role} {username}")


@users_cli.command("list")
def list_users():
    """Every user with its role and status, oldest first."""
    for user in users.every():
        status = "disabled" if user["disabled"] else "active"
        click.echo(f"{user['username']}\t{user['role']}\t{status}")


@users_cli.command("set-password")
@click.argument("username")
@click.password_option(help="Prompted for when not given.")
def set_password(username, password):
    """Give a user a new password; every token stops working at once, the old password within
    USER_CACHE_SECONDS."""
    _run(users.set_password, username, password)
    tokens.revoke_every(username)
    click.echo(f"password of {username} changed")


@users_cli.command("set-role")
@click.argument("username")
@click.argument("role", type=click.Choice(ROLES))
def set_role(username, role):
    """Change a user's role."""
    _run(users.set_role, username, role)
    click.echo(f"{username} is now {role}")


@users_cli.command("link")
@click.argument("username")
@click.argument("subject")
@click.option("--issuer", help="The identity provider (default: OIDC_ISSUER).")
def link(username, subject, issuer):
    """Bind a user to an identity provider's subject (its `sub`): their single sign-on signs them
    in from then on, in place of a first sign-in that found their username taken."""
    issuer = issuer or current_app.config["OIDC_ISSUER"]
    if not issuer:
        raise click.ClickException("no issuer: set OIDC_ISSUER or give --issuer")
    try:
        _run(users.link, username, issuer, subject)
    except DuplicateKeyError:
        raise click.ClickException("that subject is bound to another user") from None
    click.echo(f"{username} signs in as {subject} of {issuer}")


@users_cli.command("disable")
@click.argument("username")
def disable(username):
    """Refuse a user's password and tokens from now on."""
    _run(users.set_disabled, username, True)
    tokens.revoke_every(username)
    click.echo(f"{username} disabled")


@users_cli.command("enable")
@click.argument("username")
def enable(username):
    """Let a disabled user in again."""
    _run(users.set_disabled, username, False)
    click.echo(f"{username} enabled")


@click.command("migrate")
def migrate():
    """Bring documents an earlier version stored to the present shape (the app's start-up already
    ran what was pending: this says where the database is)."""
    click.echo(f"the database is at migration {migrations.done(get_db())} of {migrations.LATEST}")


def init_app(app):
    app.cli.add_command(users_cli)
    app.cli.add_command(migrate)
