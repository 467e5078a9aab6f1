"""/teams, /teams/{name}, /teams/{name}/members/{username} and /teams/{name}/spend: teams, which own
profiles, blueprints and instances, their members' roles, and what they spend."""

from flask import current_app, url_for
from flask.views import MethodView

from app.access.auth import current_user, login_required
from app.errors import Forbidden
from app.http import crud, paging, preconditions
from app.http.openapi import CHANGE, CREATE, DELETE, Blueprint, headers, problems
from app.http.preconditions import IF_MATCH, etag
from app.joins import across, spend
from app.model.accounts import creates_teams
from app.teams.schemas import MemberSchema, SpendSchema, TeamChangeSchema, TeamSchema
from app.teams.storage import store

blp = Blueprint("teams", __name__, description="Teams: their members' roles, and what they own.")


@blp.route("/teams")
class TeamCollection(MethodView):
    @login_required(role="viewer")
    @paging.paginated(
        blp, paging.PageArgs(), TeamSchema, "A page of the caller's teams (an admin's: all), newest first."
    )
    def get(self, args):
        """List the teams the caller is in (admins: every team)"""
        return store.page(current_user(), args["limit"], args.get("cursor"))

    @login_required(role="member")
    @blp.arguments(TeamSchema(), example={"name": "payments", "description": "The payments platform team."})
    @blp.response(201, TeamSchema, headers=headers("Location", "ETag"), description="The new team; you maintain it.")
    @problems(blp, *CREATE)
    def post(self, fields):
        """Create a team (admins; members too where TEAMS_BY_MEMBERS is on)"""
        user = current_user()
        if not creates_teams(user, current_app.config["TEAMS_BY_MEMBERS"]):
            raise Forbidden("Only admins create teams here (the operator has not set TEAMS_BY_MEMBERS).")
        doc = store.create(fields, user)
        location = url_for("teams.TeamItem", name=doc["name"])
        return store.seen_by(doc, user), {"Location": location, "ETag": etag(doc)}


@blp.route("/teams/<name>")
class TeamItem(MethodView):
    @login_required(role="viewer")
    @crud.reads(blp, TeamSchema, "team")
    def get(self, name):
        """Read a team you are in"""
        return crud.answer_seen(store, name)

    @login_required(role="member")
    @blp.arguments(TeamChangeSchema(), example={"description": "Payments and billing."})
    @blp.response(200, TeamSchema, headers=headers("ETag"), description="The changed team.")
    @blp.doc(parameters=[IF_MATCH])
    @problems(blp, *CHANGE)
    def patch(self, fields, name):
        """Change a team's description (its maintainers, admins)"""
        user = current_user()
        doc = store.change(name, user, fields, preconditions.if_match())
        return store.seen_by(doc, user), {"ETag": etag(doc)}

    @login_required(role="member")
    @blp.response(204, description="The team is gone.")
    @blp.doc(parameters=[IF_MATCH])
    @problems(blp, *DELETE, 409)
    def delete(self, name):
        """Delete a team that owns nothing and that nothing names (its maintainers, admins)"""
        store.delete(name, current_user(), across.team_in_use, preconditions.if_match())


@blp.route("/teams/<name>/members/<username>")
class TeamMember(MethodView):
    @login_required(role="member")
    @blp.arguments(MemberSchema(), example={"role": "member"})
    @blp.response(200, MemberSchema, description="The member, with the role given.")
    @problems(blp, 400, 403, 404, 409, 413, 415, 422)
    def put(self, fields, name, username):
        """Add a user to a team, or change their role (its maintainers, admins)"""
        return store.set_member(name, current_user(), username, fields["role"])

    @login_required(role="member")
    @blp.response(204, description="The user is no longer in the team.")
    @problems(blp, *DELETE, 409)
    def delete(self, name, username):
        """Take a user out of a team (its maintainers, admins), or leave it yourself"""
        store.remove_member(name, current_user(), username)


@blp.route("/teams/<name>/spend")
class TeamSpend(MethodView):
    @login_required(role="viewer")
    @blp.arguments(paging.PageArgs(), location="query", as_kwargs=False)
    @blp.response(200, SpendSchema, headers=headers("Link"), description="What the team's profiles cost a month.")
    @problems(blp, 404, 422)
    def get(self, args, name):
        """What a team spends: a page of the profiles it owns, and their sum"""
        body, position = spend.spend(name, current_user(), args)
        page, link = paging.respond(body.pop("profiles"), None if position is None else paging.sign(position))
        return {**body, "profiles": page["items"], "next": page["next"]}, link
