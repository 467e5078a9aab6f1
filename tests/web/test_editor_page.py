"""The editor (#/new, #/blueprints/ID/edit) in headless Chromium: problems as one types, each
with its line marked; a create; someone who saved first named, with their change; and a Compose
file's variables declared as parameters."""

from selenium.webdriver.support.ui import Select

from support.pages import IMPORTED, MADE, MARKS

pytestmark = MARKS


def test_the_editor_checks_as_one_types_and_names_who_saved_first(person, seeded):
    """A definition with a problem, then a create, then a save that meets another made meanwhile."""
    w, (client, *_) = person, seeded
    w.go("#/new")
    w.sign_in("alice")
    w.wait(lambda: w.heading() == "New blueprint")
    w.fill("Name", "made-in-the-browser")
    assert Select(w.control("Type")).first_selected_option.text == "Compose"  # a choice, Compose first
    Select(w.control("Type")).select_by_visible_text("Another type (not checked)")
    w.fill("Definition (YAML)", "services:\n  web:\n    imagez: nginx\n")
    w.wait(lambda: w.one("#checks").text.startswith("Not checked"))
    assert not w.all("#checks .ok")  # what was not checked is never shown green
    Select(w.control("Type")).select_by_visible_text("Compose")
    w.fill("Definition (YAML)", "services:\n  web:\n    imagez: nginx\n")
    w.wait(lambda: "imagez" in w.one("#checks").text)

    def marked():
        return [i + 1 for i, li in enumerate(w.all(".gutter li")) if li.get_attribute("class") == "bad"]

    w.wait(lambda: marked() == [2])  # services.web (the gutter follows the problems' text, a frame later)
    w.console(422)
    w.check_page("editor-problems")
    w.fill("Definition (YAML)", MADE)
    w.wait(lambda: w.one("#checks").text.startswith("No problems. 2 containers, at least 256 MiB, CPU undeclared"))
    assert not w.all(".gutter li.bad")
    w.view(lambda: w.button("Create").click())
    w.wait(lambda: w.heading() == "made-in-the-browser")
    made = w.browser.current_url.rsplit("/", 1)[1]
    assert client.get(f"/blueprints/{made}", user="alice").json["yml"] == MADE
    measured = w.one("section[aria-label=Requirements]").text
    assert "Unresolved" in measured and "CACHE_CPUS" in measured and "web: cpu" in measured

    # Someone else saves first: the 412 says who, shows their change, and lets one save over it
    w.view(lambda: w.one(f"a.button[href='#/blueprints/{made}/edit']").click())
    w.wait(lambda: w.heading() == "Edit made-in-the-browser" and w.one("#checks").text.startswith("No problems"))
    assert client.patch(f"/blueprints/{made}", json={"description": "changed meanwhile"}, user="admin").status == 200
    w.fill("Version", "2")
    w.button("Save").click()
    w.wait(lambda: "admin changed this blueprint" in w.one("main").text)
    assert "revision 2" in w.one("main").text and "changed meanwhile" in w.one("main").text
    w.console(412)
    w.check_page("editor-conflict")
    w.view(lambda: w.button("Save mine over theirs").click())
    w.wait(lambda: w.heading() == "made-in-the-browser" and "version 2" in w.one("main p.meta").text)
    assert client.get(f"/blueprints/{made}", user="alice").json["rev"] == 3


def test_the_editor_declares_a_definitions_variables_as_parameters(person, seeded):
    """Each ${VARIABLE} declared, typed from its default, a secret's writeOnly."""
    w, (client, *_) = person, seeded
    w.go("#/new")
    w.sign_in("alice")
    w.wait(lambda: w.heading() == "New blueprint")
    w.fill("Name", "declared")
    Select(w.control("Type")).select_by_visible_text("Compose")
    w.fill("Definition (YAML)", IMPORTED)
    w.button("Declare the variables").click()
    parameters = "Parameters (a JSON Schema of type object; empty for none)"
    w.wait(lambda: '"REPLICAS"' in w.control(parameters).get_attribute("value"))
    w.wait(lambda: "No problems" in w.one("#checks").text)
    w.check_page("editor-declared")
    w.view(lambda: w.button("Create").click())
    [declared] = client.get("/blueprints?name=declared", user="admin").json["items"]
    assert declared["parameters"]["properties"]["REPLICAS"] == {"type": "integer", "default": 1}
    assert declared["parameters"]["properties"]["POSTGRES_PASSWORD"]["writeOnly"] is True
