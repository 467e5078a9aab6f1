"""/profiles and /profiles/{id}: list, create, read, change, replace, delete."""

from flask.views import MethodView

from app.access.auth import current_user, login_required
from app.blueprints.storage import store as blueprints
from app.budgets.fitting import profiles_fitted_by
from app.http import crud, idempotency, paging
from app.http.crud import CREATED, DRY_RUN, NOT_MODIFIED, ChangeArgs
from app.http.openapi import Blueprint, headers, problems
from app.http.paging import page_schema
from app.http.preconditions import IF_MATCH, IF_NONE_MATCH
from app.model.schemas import WRITE_PARAMETERS, WriteArgs
from app.profiles.schemas import ProfileDraftSchema, ProfileQuery, ProfileSchema
from app.profiles.storage import store

blp = Blueprint(
    "profiles",
    __name__,
    url_prefix="/profiles",
    description="Named sets of resource caps; at most one default per owner.",
)
EXAMPLE = {
    "name": "small",
    "defaultProfile": True,
    "memoryCap": "512Mi",
    "cpuCap": "500m",
    "containerCap": "10",
    "storageCap": "20Gi",
}


@blp.route("")
class ProfileCollection(MethodView):
    @login_required(role="viewer")
    @blp.arguments(ProfileQuery(), location="query", as_kwargs=False)
    @blp.response(
        200, page_schema(ProfileSchema), headers=headers("Link"), description="A page of profiles, newest first."
    )
    @problems(blp, 404, 422)
    def get(self, args):
        """List the profiles the caller may read"""
        user, fitting = current_user(), None
        if "fits" in args:  # the blueprint must be readable: 404 otherwise
            fitting = profiles_fitted_by(blueprints.get(args["fits"], user))
        return paging.respond_page(*store.list(user, args, fitting))

    @login_required(role="member")
    @blp.arguments(ProfileSchema(), example=EXAMPLE)
    @blp.arguments(WriteArgs(), location="query", as_kwargs=True)
    @blp.response(201, ProfileSchema, headers=headers(*CREATED), description="The new profile.")
    @blp.alt_response(200, schema=ProfileDraftSchema, description=DRY_RUN.format("profile"))
    @blp.doc(parameters=[idempotency.HEADER, WRITE_PARAMETERS])
    @problems(blp, 400, 403, 409, 413, 415, 422)
    def post(self, fields, dryRun):
        """Create a profile"""
        return crud.answer_create(store, fields, dryRun, "profiles.ProfileItem")


@blp.route("/<id>")
class ProfileItem(MethodView):
    @login_required(role="viewer")
    @blp.response(200, ProfileSchema, headers=headers("ETag"), description="The profile.")
    @blp.alt_response(304, description=NOT_MODIFIED, headers=headers("ETag"))
    @blp.doc(parameters=[IF_NONE_MATCH])
    @problems(blp, 404)
    def get(self, id):
        """Read one profile"""
        return crud.answer_read(store.get(id, current_user()))

    @login_required(role="member")
    @blp.arguments(ProfileSchema(partial=True), example={"name": "small"})
    @blp.arguments(ChangeArgs(), location="query", as_kwargs=True)
    @blp.response(200, ProfileSchema, headers=headers("ETag"), description="The changed profile.")
    @blp.doc(parameters=[IF_MATCH, WRITE_PARAMETERS])
    @problems(blp, 400, 403, 404, 412, 413, 415, 422)
    def patch(self, changes, id, dryRun):
        """Change the fields sent of a profile"""
        return crud.answer_change(store, id, changes, dryRun)

    @login_required(role="member")
    @blp.arguments(ProfileSchema(), example=EXAMPLE)
    @blp.arguments(ChangeArgs(), location="query", as_kwargs=True)
    @blp.response(200, ProfileSchema, headers=headers("ETag"), description="The replaced profile.")
    @blp.doc(parameters=[IF_MATCH, WRITE_PARAMETERS])
    @problems(blp, 400, 403, 404, 412, 413, 415, 422)
    def put(self, fields, id, dryRun):
        """Replace every writable field of a profile"""
        return crud.answer_change(store, id, fields, dryRun)

    @login_required(role="member")
    @blp.response(204, description="The profile is gone.")
    @blp.doc(parameters=[IF_MATCH])
    @problems(blp, 403, 404, 412)
    def delete(self, id):
        """Delete a profile"""
        crud.answer_delete(store.delete, id)
