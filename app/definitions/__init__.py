"""What a blueprint's definition says: checked against its format (compose.py, kubernetes.py) and
measured (`requirements`) as rendered with its parameters' defaults; problems for `yml`, each with
its place, at most MAX_PROBLEMS. The package holds everything about a blueprint's content: the
interpolation grammar, templates, parameters, a render and the fit to a profile. May import
app.model, app.errors, app.config."""

from app.definitions import compose, kubernetes, parameters, secret_places, templates
from app.definitions.placeholders import MissingValue
from app.definitions.schemas import MAX_PROBLEMS
from app.definitions.totals import Totals
from app.errors import Invalid
from app.model import yamlguard

FORMATS = {
    "compose": compose,
    "docker-compose": compose,
    "docker_compose": compose,
    "kubernetes": kubernetes,
    "k8s": kubernetes,
}


def format_of(blueprint_type):
    return FORMATS.get((blueprint_type or "").lower())


def dialect_of(blueprint_type):
    fmt = format_of(blueprint_type)
    return templates.LENIENT if fmt is None else fmt.DIALECT


def loader_for(blueprint_type):
    """What a body's `yml` is read with: its format's own loader, so that the definition is parsed
    once; Compose's when the body names no type (a change keeping the stored one: most are Compose)."""
    return compose.DIALECT.loader if blueprint_type is None else dialect_of(blueprint_type).loader


def requirements(blueprint_type, yml, declared=None):
    """The requirements of a definition (its `yml`, text or `yamlguard.Parsed`, rendered at the
    defaults of the `declared` parameters), None for a type no format is known for; Invalid naming
    `yml` when the definition is not valid for its format."""
    fmt, text = format_of(blueprint_type), yamlguard.text_of(yml)
    if fmt is None or text is None:
        return None
    if misplaced := secret_places.refused(text, declared, fmt.DIALECT.strict, fmt is compose):
        raise Invalid({"yml": misplaced})
    if declared and "$" in text:
        try:
            yml = templates.render(text, parameters.defaults(declared), fmt.DIALECT)
        except MissingValue as exc:
            raise Invalid({f"parameters.properties.{exc.name}.default": [str(exc)]}) from None
    return measure(fmt, yml)


def measure(fmt, yml):
    """The requirements of a definition ready to deploy (a template rendered: text, or a
    `yamlguard.Parsed` that a body's field read with this format's loader), of format `fmt`."""
    parsed = isinstance(yml, yamlguard.Parsed) and yml.loader is fmt.DIALECT.loader and "$" not in yml.text
    return measure_documents(fmt, yml.documents if parsed else read(fmt, yamlguard.text_of(yml)))


def read(fmt, text):
    """The documents of a definition ready to deploy, as its format's tools read them; Invalid
    naming `yml` where they refuse it."""
    try:
        return templates.load(text, fmt.DIALECT)
    except yamlguard.YamlError as exc:
        raise Invalid({"yml": [str(exc)]}) from None


def measure_documents(fmt, documents, security=None):
    """The requirements of the documents of a definition of format `fmt` (yamlguard.Documents, as
    read, or as built: a conversion's objects, measured without writing and reading them again).
    `security`: pod security findings already known ({target: findings}; a conversion's are those
    of the Compose file it converts), not looked for again in the documents."""
    totals = Totals(security)
    problems = fmt.judge(documents, totals)
    if problems:
        raise Invalid({"yml": problems[:MAX_PROBLEMS]})
    return totals.as_dict()
