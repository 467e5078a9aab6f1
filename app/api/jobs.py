"""/jobs/{id}: how far long work has come (its starter, the owner it works for, admins); what
starts one answers `accepted`: 202, the job, and its Location."""

from flask import current_app, url_for
from flask.views import MethodView

from app.access.auth import current_user, login_required
from app.http.openapi import Blueprint, headers, problems
from app.jobs.schemas import JobSchema
from app.jobs.storage import store

blp = Blueprint("jobs", __name__, url_prefix="/jobs", description="Long work: imports, syncs, upgrades of many.")


def accepted(job):
    """The answer of a request that started `job`: made here, whatever the route's own 200 is."""
    answer = current_app.json.response(JobSchema().dump(job))
    answer.status_code = 202
    answer.headers["Location"] = url_for("jobs.JobItem", id=str(job["_id"]))
    return answer


@blp.route("/<id>")
class JobItem(MethodView):
    @login_required(role="viewer")
    @blp.response(
        200,
        JobSchema,
        headers=headers("Cache-Control"),
        description="The job: its state, progress and, once done, its report (an upgrade's diffs hold secrets).",
    )
    @problems(blp, 404)
    def get(self, id):
        """Read a job"""
        return store.readable(id, current_user()), {"Cache-Control": "no-store"}
