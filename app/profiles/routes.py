"""/profiles and /profiles/{id}: list, create, read, change, replace, delete."""

from flask.views import MethodView

from app.access.auth import current_user
from app.blueprints.fitting import profiles_fitted_by
from app.blueprints.storage import store as blueprints
from app.http import crud, paging
from app.http.openapi import Blueprint
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
    @crud.list_endpoint(blp, ProfileQuery(), ProfileSchema, "A page of profiles, newest first.")
    def get(self, args):
        """List the profiles the caller may read"""
        user, fitting = current_user(), None
        if "fits" in args:  # the blueprint must be readable: 404 otherwise
            fitting = profiles_fitted_by(blueprints.get(args["fits"], user))
        return paging.respond_page(*store.list(user, args, fitting))

    @crud.create_endpoint(blp, ProfileSchema, ProfileDraftSchema, "profile", example=EXAMPLE)
    def post(self, fields, dryRun):
        """Create a profile"""
        return crud.answer_create(store, fields, dryRun, "profiles.ProfileItem")


@blp.route("/<id>")
class ProfileItem(MethodView):
    @crud.read_endpoint(blp, ProfileSchema, "The profile.")
    def get(self, id):
        """Read one profile"""
        return crud.answer_read(store.get(id, current_user()))

    @crud.change_endpoint(blp, ProfileSchema(partial=True), "The changed profile.", example={"name": "small"})
    def patch(self, changes, id, dryRun):
        """Change the fields sent of a profile"""
        return crud.answer_change(store, id, changes, dryRun)

    @crud.change_endpoint(blp, ProfileSchema(), "The replaced profile.", example=EXAMPLE)
    def put(self, fields, id, dryRun):
        """Replace every writable field of a profile"""
        return crud.answer_change(store, id, fields, dryRun)

    @crud.delete_endpoint(blp, "The profile is gone.")
    def delete(self, id):
        """Delete a profile"""
        crud.answer_delete(store, id)
