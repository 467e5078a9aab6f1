"""/instances and its sub-resources: list, admit (create), read, delete; the rendered definition;
an upgrade to another revision of the blueprint; its releases, and a rollback to one."""

from flask import Response, url_for
from flask.views import MethodView

from app.access.auth import current_user, login_required
from app.api.jobs import accepted
from app.errors import NotFound
from app.http import crud, paging, preconditions
from app.http.openapi import Blueprint, header, headers, problems
from app.http.preconditions import IF_MATCH, etag
from app.instances import releases
from app.instances.schemas import (
    RELEASE_CURSOR,
    FleetUpgradeArgs,
    FleetUpgradeSchema,
    InstanceDraftSchema,
    InstanceQuery,
    InstanceSchema,
    ReleasePageArgs,
    ReleaseSchema,
    RollbackArgs,
    UpgradeArgs,
    UpgradeSchema,
    WithdrawArgs,
)
from app.instances.storage import store
from app.jobs import runner
from app.jobs.schemas import JobSchema
from app.joins import across, admission, fleet
from app.model.schemas import WRITE_PARAMETERS, WriteArgs

blp = Blueprint(
    "instances",
    __name__,
    url_prefix="/instances",
    description="What was deployed from a blueprint: admitted against a profile's room, counted in its usage.",
)
EXAMPLE = {
    "name": "shop",
    "blueprint": "6740f1c2a9e3b1d2c3f4a5b6",
    "profile": "6740f1c2a9e3b1d2c3f4a5b7",
    "values": {"REPLICAS": 3},
}
NO_STORE = {"Cache-Control": "no-store"}  # the definition and an upgrade's diff hold the instance's secrets


@blp.route("")
class InstanceCollection(
    crud.created(
        blp,
        store,
        InstanceSchema,
        InstanceDraftSchema,
        "instance",
        "Admit an instance of a blueprint against a profile's room",
        make=admission.admit,
        example=EXAMPLE,
    )
):
    @login_required(role="viewer")
    @paging.paginated(blp, InstanceQuery(), InstanceSchema, "A page of instances, newest first.")
    def get(self, args):
        """List the instances the caller may read"""
        return store.list(current_user(), args, across.behind(args))


@blp.route("/upgrade")
class FleetUpgrade(MethodView):
    @login_required(role="member")
    @blp.arguments(FleetUpgradeArgs(), example={"blueprint": "6740f1c2a9e3b1d2c3f4a5b6", "behind": True})
    @blp.arguments(WriteArgs(), location="query", as_kwargs=True)
    @blp.response(200, FleetUpgradeSchema, headers=headers("Cache-Control"), description="Each instance's result.")
    @blp.alt_response(202, schema=JobSchema, headers=headers("Location"), description="Past 50 instances: its job.")
    @blp.doc(parameters=[WRITE_PARAMETERS])
    @problems(blp, 400, 403, 404, 413, 415, 422)
    def post(self, args, dryRun):
        """Upgrade every instance of a selection you may change, each on its own"""
        user = current_user()
        query = fleet.selection(args, user)
        options = {"rev": args.get("rev"), "behind": args["behind"], "dry_run": dryRun, "if_match": args["ifMatch"]}
        if fleet.how_many(query) <= fleet.MOST_AT_ONCE:
            return fleet.upgrade_each(query, user, **options), NO_STORE
        work = lambda progress: fleet.upgrade_each(query, user, progress=progress, **options)  # noqa: E731
        return accepted(runner.start("upgrade", user, user["username"], work, FleetUpgradeSchema()))


MONITOR = {"Link": header('Delivered: the job taking its project down, as `</jobs/ID>; rel="monitor"` (RFC 5989).')}


@blp.route("/<instance_id:id>")
class InstanceItem(crud.read(blp, store, InstanceSchema, "instance")):
    @login_required(role="member")
    @crud.deletes(blp, "The instance is gone; its profile's usage is freed; delivered, a job takes it down.", MONITOR)
    @blp.arguments(WithdrawArgs(), location="query", as_kwargs=True)
    def delete(self, id, purge):
        """Delete an instance, freeing its usage (delivered: `Link` names the job taking it down, rel="monitor")"""
        job = admission.withdraw(id, current_user(), preconditions.if_match(), purge)
        if job is not None:
            return None, 204, {"Link": f'<{url_for("jobs.JobItem", id=str(job["_id"]))}>; rel="monitor"'}
        return None


@blp.route("/<instance_id:id>/yml")
class InstanceDefinition(MethodView):
    @login_required(role="viewer")
    @crud.downloads(blp, "The rendered definition, the same bytes every time.", "Cache-Control")
    def get(self, id):
        """Download an instance's rendered definition (its owner and admins)"""
        user = current_user()
        doc = store.readable(id, user)
        if not store.can_read_definition(doc, user):  # it is not there for them: its secrets are its owner's
            raise NotFound("No definition of this instance is yours to read: only its owner and admins read it.")
        return crud.answer_read(doc, Response(doc["yml"], mimetype="application/yaml"), NO_STORE)


@blp.route("/<instance_id:id>/upgrade")
class InstanceUpgrade(MethodView):
    @login_required(role="member")
    @blp.arguments(UpgradeArgs(), example={"rev": 3, "values": {"REPLICAS": 4}})
    @blp.arguments(WriteArgs(), location="query", as_kwargs=True)
    @blp.response(
        200,
        UpgradeSchema,
        headers=headers("ETag", "Cache-Control"),
        description="The instance as upgraded, and the diff (which holds its secrets).",
    )
    @blp.doc(parameters=[IF_MATCH, WRITE_PARAMETERS])
    @problems(blp, 400, 403, 404, 409, 412, 413, 415, 422)
    def post(self, args, id, dryRun):
        """Render an instance again at a revision (newer: an upgrade; older: a rollback)"""
        user = current_user()
        doc, diff = admission.upgrade(
            id,
            user,
            args.get("rev"),
            args["values"],
            preconditions.if_match(),
            dry_run=dryRun,
            namespace=args.get("namespace"),
        )
        answer = {**store.seen_by(doc, user), "diff": diff}
        return answer, NO_STORE if dryRun else {**NO_STORE, "ETag": etag(doc)}


@blp.route("/<instance_id:id>/releases")
class InstanceReleases(MethodView):
    @login_required(role="viewer")
    @paging.paginated(blp, ReleasePageArgs(), ReleaseSchema, "Releases, newest (current) first.", RELEASE_CURSOR.sign)
    def get(self, args, id):
        """List an instance's releases"""
        return releases.page(store.readable(id, current_user()), args["limit"], args.get("cursor"))


@blp.route("/<instance_id:id>/rollback")
class InstanceRollback(MethodView):
    @login_required(role="member")
    @blp.arguments(RollbackArgs(), example={"release": 1})
    @blp.response(
        200,
        UpgradeSchema,
        headers=headers("ETag", "Cache-Control"),
        description="The instance as rolled back (a new release), and the diff (which holds its secrets).",
    )
    @blp.doc(parameters=[IF_MATCH])
    @problems(blp, 400, 403, 404, 409, 412, 413, 415, 422)
    def post(self, args, id):
        """Restore a release: its revision and its values, admitted as an upgrade is"""
        user = current_user()
        doc, diff = admission.rollback(id, user, args["release"], preconditions.if_match())
        return {**store.seen_by(doc, user), "diff": diff}, {**NO_STORE, "ETag": etag(doc)}
