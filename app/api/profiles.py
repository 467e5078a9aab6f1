"""/profiles and /profiles/{id}: list, create, read, change, replace, delete."""

from app.access.auth import current_user, login_required
from app.blueprints.storage import store as blueprints
from app.http import crud, paging
from app.http.openapi import Blueprint
from app.joins.to_profile import profiles_fitted_by
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
class ProfileCollection(
    crud.created(blp, store, ProfileSchema, ProfileDraftSchema, "profile", "Create a profile", example=EXAMPLE)
):
    @login_required(role="viewer")
    @paging.paginated(blp, ProfileQuery(), ProfileSchema, "A page of profiles, newest first.")
    def get(self, args):
        """List the profiles the caller may read"""
        user, fitting = current_user(), None
        if "fits" in args:  # the blueprint must be readable: 404 otherwise
            fitting = profiles_fitted_by(blueprints.readable(args["fits"], user))
        return store.list(user, args, fitting)


@blp.route("/<id>")
class ProfileItem(crud.edited(blp, store, ProfileSchema, "profile", EXAMPLE, {"name": "small"})):
    """One profile: read, changed, replaced, deleted."""
