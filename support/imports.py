"""POST /imports as the tests send it, its report by template key, and Docker Compose's judgement of
what it created."""

from support import compose_oracle


def imported(api, fmt, document, source="catalog", user="alice", dry_run=False, **body):
    response = api.post(
        "/imports" + ("?dryRun=true" if dry_run else ""),
        json={"format": fmt, "source": source, "document": document, **body},
        user=user,
    )
    assert response.status == 200, response.json
    return response.json


def by_key(report):
    return {result["key"]: result for result in report["results"]}


def refused_by_compose(api, report, profile, left_over):
    """(key, message) of each blueprint the import `report` created whose render, with its
    required values (a generated one given "example") and `profile`'s defaults, Docker Compose
    refuses; each render must answer 200 and hold nothing `left_over` (a platform's syntax) finds."""
    refused = []
    for result in [result for result in report["results"] if result["outcome"] == "created"]:
        declared = api.get(f"/blueprints/{result['id']}", user="alice").json["parameters"] or {"properties": {}}
        properties = declared["properties"]
        values = {
            name: "example" if "x-generate" in properties[name] else properties[name]["examples"][0]
            for name in declared.get("required", [])
        }
        render = api.post(
            f"/blueprints/{result['id']}/render", json={"values": values, "profile": profile}, user="alice"
        )
        assert render.status == 200, (result["key"], render.json)
        assert not left_over.search(render.json["yml"]), result["key"]
        accepted, message = compose_oracle.config(render.json["yml"], files={".env": ""})
        if not accepted:
            refused.append((result["key"], message))
    return refused
