"""One Compose file and its `.env`: a blueprint whose parameters are the variables the file uses,
their defaults from the `.env` and from the file itself (`${VAR:-default}`)."""

from app.definitions.placeholders import TemplateError
from app.imports import variables
from app.imports.candidate import Candidate, parameters
from app.model.yamlguard import YamlError


def candidates(document, files, defaults):
    """One Compose file (`document`, its text) and its `.env`, named by `defaults.name`."""
    if not isinstance(document, str):
        raise ValueError("must be the text of a Compose file.")
    name = defaults.get("name")
    if not name:
        raise ValueError("a Compose file's blueprint needs `defaults.name`.")
    found = Candidate(name, name)
    try:
        env = variables.dotenv(files.get(".env", ""))
    except ValueError as exc:
        found.problems.append(f"files..env: {exc}")
        return [found]
    try:
        properties, required, found.notes = variables.inferred(document, env)
        for variable in variables.hosts_alone(document):  # a route's host alone: the team's domain fills it
            properties[variable] = {**properties[variable], "x-role": "domain"}
    except (TemplateError, YamlError) as exc:
        found.problems.append(f"document: {exc}")
        return [found]
    found.fields = {
        "name": name,
        "blueprintType": "compose",
        "yml": document,
        "parameters": parameters(properties, required),
    }
    return [found]
