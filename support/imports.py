"""POST /imports as the tests send it, and its report by template key."""


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
