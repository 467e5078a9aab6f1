"""`flask users ...`: account management from the shell, for the first admin and for recovery."""
import click
import marshmallow as ma
from flask.cli import AppGroup

from app.users import storage
from app.users.schemas import ROLES

users_cli = AppGroup("users", help="Manage user accounts.")


@users_cli.command("create")
@click.argument("username")
@click.option("--role", type=click.Choice(ROLES), default="member", show_default=True)
@click.password_option(help="Prompted for when not given.")
def create_user(username, role, password):
    """Create a user; the password is prompted for, twice."""
    try:
        storage.create(username, password, role)
    except ma.ValidationError as exc:
        raise click.ClickException("; ".join(f"{k}: {' '.join(v)}" for k, v in exc.messages.items()))
    except storage.UsernameTaken:
        raise click.ClickException(f"the username {username!r} is taken")
    click.echo(f"created {role} {username}")


def init_app(app):
    app.cli.add_command(users_cli)
