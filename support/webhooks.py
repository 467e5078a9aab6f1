"""A forge's push as the sources' tests send it: the body GitHub, Gitea or GitLab posts, signed as
each signs it, delivered to a source's webhook."""

import hashlib
import hmac
import json
import uuid

SECRET = "a-webhook-secret-of-some-length"


def signed_headers(forge_name, body, secret=SECRET, event="push"):
    digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    delivery = str(uuid.uuid4())
    return {
        "github": {"X-GitHub-Event": event, "X-GitHub-Delivery": delivery, "X-Hub-Signature-256": f"sha256={digest}"},
        "gitea": {"X-Gitea-Event": event, "X-Gitea-Delivery": delivery, "X-Gitea-Signature": digest},
        "gitlab": {
            "X-Gitlab-Event": "Push Hook" if event == "push" else event,
            "X-Gitlab-Event-UUID": delivery,
            "X-Gitlab-Token": secret,
        },
    }[forge_name]


def push(ref="refs/heads/main", forge_name="github"):
    project = {"default_branch": "main"}
    return {"ref": ref, ("project" if forge_name == "gitlab" else "repository"): project}


def deliver(api, source, body, headers):
    raw = json.dumps(body).encode()
    return api.post(
        f"/sources/{source['id']}/webhook", data=raw, headers={"Content-Type": "application/json", **headers}
    )
