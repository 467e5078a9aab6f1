"""/users, /users/me and /tokens: accounts (admins manage them) and bearer tokens."""

from flask import current_app
from flask.views import MethodView

from app.access import login_throttle
from app.access.auth import CHALLENGE, current_token, current_user, login_required, signed_in_by_provider
from app.access.schemas import PasswordChangeSchema, TokenSchema, TokensQuery, UserSchema
from app.access.tokens import store as tokens
from app.access.users import UsernameTaken
from app.access.users import store as users
from app.errors import Conflict, Forbidden, Invalid, Unauthorized
from app.http import paging
from app.http.openapi import Blueprint, headers, problems
from app.http.parser import bodiless
from app.model.accounts import creates_teams, holds, is_admin

blp = Blueprint("users", __name__, description="Accounts and their roles; bearer tokens.")


@blp.route("/users")
class Users(MethodView):
    @login_required(role="admin")
    @paging.paginated(blp, paging.PageArgs(), UserSchema, "A page of users, newest first.", statuses=(403, 422))
    def get(self, args):
        """List users (admins)"""
        return users.page(args["limit"], args.get("cursor"))

    @login_required(role="admin")
    @blp.arguments(UserSchema(), example={"username": "alice", "password": "a long passphrase", "role": "member"})
    @blp.response(201, UserSchema, description="The new user (never its password).")
    @problems(blp, 400, 403, 409, 413, 415, 422)
    def post(self, fields):
        """Create a user (admins)"""
        try:
            user = users.create(fields["username"], fields["password"], fields["role"])
        except UsernameTaken:
            raise Conflict("The username is taken.")
        return user


@blp.route("/users/me", endpoint="Me")
class Me(MethodView):
    @login_required(role="viewer")
    @blp.response(200, UserSchema, description="The caller.")
    @problems(blp)
    def get(self):
        """Who am I, and what I may create (`can`)"""
        user = current_user()
        made = {"create": holds(user, "member"), "manageUsers": is_admin(user)}
        return {**user, "can": {**made, "createTeams": creates_teams(user, current_app.config["TEAMS_BY_MEMBERS"])}}


@blp.route("/users/me/password", endpoint="MyPassword")
class MyPassword(MethodView):
    @login_required(role="viewer")
    @blp.arguments(PasswordChangeSchema(), example={"current": "the old passphrase", "new": "a new long passphrase"})
    @blp.response(204, description="Changed; every token of the caller is revoked.")
    @problems(blp, 400, 403, 413, 415, 422, 429)
    def post(self, fields):
        """Change your own password (a wrong `current` counts as a failed login)"""
        username = current_user()["username"]
        if not login_throttle.verified(username, fields["current"]):
            raise Forbidden("The current password is not right.")
        users.set_password(username, fields["new"])
        tokens.revoke_every(username)


@blp.route("/tokens")
class Tokens(MethodView):
    @login_required(role="viewer")
    @blp.response(201, TokenSchema, headers=headers("Cache-Control"), description="A bearer token and when it expires.")
    @problems(blp, 415)
    @bodiless
    def post(self):
        """Exchange a username and password (Basic), or an identity provider's access token, for a bearer token"""
        if current_token() is not None and not signed_in_by_provider():
            detail = "A token of the service's makes no other: sign in with a password or the provider."
            raise Unauthorized(detail, headers={"WWW-Authenticate": CHALLENGE})
        token, expires = tokens.issue(current_user())
        return {"token": token, "expiresAt": expires}, {"Cache-Control": "no-store"}

    @login_required(role="viewer")
    @blp.arguments(TokensQuery(), location="query", as_kwargs=True)
    @blp.response(204, description="The bearer token of this request is revoked, or with all=true every token.")
    @problems(blp, 422)
    def delete(self, all):  # noqa: A002 (the query's name)
        """Revoke the bearer token sent with this request, or every token of yours (all=true)"""
        user = current_user()
        if all:
            tokens.revoke_every(user["username"])
        elif current_token() is None:
            raise Invalid({"all": ["Send the token to revoke as the bearer, or all=true to revoke every token."]})
        else:
            tokens.revoke(current_token(), user)
