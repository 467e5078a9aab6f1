"""The Import page (#/import) in headless Chromium: a Compose file and its .env previewed then
imported; a Portainer catalog chosen as a file with the folder of its stack files; a Coolify
template pasted and a checkout of Coolify's chosen as a folder."""

from selenium.webdriver.support.ui import Select

from support import corpus
from support.pages import IMPORTED, MARKS

pytestmark = MARKS
# Every file the page reads from here on takes a second more, as from a slow disk or a network share.
SLOW_READS = """
const read = Blob.prototype.text;
Blob.prototype.text = function () {
  return new Promise((done) => setTimeout(done, 1000)).then(() => read.call(this));
};
"""


def test_catalogs_and_compose_files_are_previewed_then_imported(person, seeded):
    """The admin imports a Compose file, previews a Portainer and a Coolify catalog."""
    w, (client, *_) = person, seeded
    w.go("#/import")
    w.sign_in("admin")
    w.wait(lambda: w.heading() == "Import")
    Select(w.control("Format")).select_by_value("compose")
    w.wait(lambda: "Name of the blueprint" in w.one("main form").text)
    w.fill("Source", "team-a/db")
    w.fill("Name of the blueprint", "db-imported")
    w.fill("Catalog or Compose file (paste it, or choose its file)", IMPORTED)
    w.fill(".env (optional)", "TAG=16.4\n")
    w.button("Preview").click()
    w.wait(lambda: w.all("table[aria-label='What the import would do']"))
    row = w.one("table[aria-label='What the import would do'] tbody tr")
    assert "created" in row.text and "POSTGRES_PASSWORD: a secret without a default" in row.text
    assert client.get("/blueprints?name=db-imported", user="admin").json["items"] == []
    w.check_page("import-preview")
    w.browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", w.button("Import"))
    w.button("Import").click()
    w.wait(lambda: w.all("table[aria-label='What the import did'] a"))
    [made] = client.get("/blueprints?name=db-imported", user="admin").json["items"]
    assert made["source"] == {"format": "compose", "name": "team-a/db", "key": "db-imported", "rev": 1}
    assert made["parameters"]["properties"]["TAG"]["default"] == "16.4"
    assert made["parameters"]["properties"]["REPLICAS"] == {"type": "integer", "default": 1}
    w.check_page("import-done")

    assert w.one("main form div[aria-live] p.ok").text == "Imported."  # said where the report is

    # A Portainer catalog chosen as a file (Source takes its name), with the folder of its stack files
    Select(w.control("Format")).select_by_value("portainer")
    w.control("Source").clear()
    w.control("File").send_keys(str(corpus.folder() / "portainer" / "portainer-templates-v3.json"))
    catalog = "Catalog or Compose file (paste it, or choose its file)"
    w.wait(lambda: w.control(catalog).get_attribute("value").startswith("{"))
    assert w.control("Source").get_attribute("value") == "portainer-templates-v3.json"
    w.control("Source").clear()  # left empty, the field at fault is marked and the problem in view
    w.button("Preview").click()
    w.wait(lambda: w.control("Source").get_attribute("aria-invalid") == "true")
    assert "source:" in w.one("main form ul.problems").text
    w.console(422)
    w.fill("Source", "portainer/templates")
    folder = w.control("Stack files: the folder of the catalog repository")
    # a slow disk: each file takes a second to read, and Preview is pressed at once, as a person may
    w.browser.execute_script(SLOW_READS)
    folder.send_keys(str(corpus.folder() / "portainer" / "portainer-templates"))
    w.button("Preview").click()
    w.fill("Tags for what it makes", "portainer")  # while the preview is asked: not what it shows
    w.wait(lambda: w.all("table[aria-label='What the import would do']"))
    counts = w.one("main form div[aria-live] p").text
    assert counts == "Nothing is stored yet: 68 created, 1 skipped.", counts
    assert not w.button("Import").is_enabled()  # the form changed since the preview was asked
    w.control("Tags for what it makes").clear()
    w.check_page("import-portainer")

    # A Coolify catalog: a checkout of Coolify's repository chosen as a folder (Source takes its name)
    checkout = w.downloads.parent / "coolify" / "templates" / "compose"
    checkout.mkdir(parents=True)
    for name in ("activepieces.yaml", "azimutt.yaml"):  # Coolify marks azimutt `# ignore: true`
        (checkout / name).write_text((corpus.folder() / "coolify" / name).read_text())
    Select(w.control("Format")).select_by_value("coolify")
    w.wait(lambda: "a checkout of the platform" in w.one("main form").text)
    # one template pasted: the Portainer stack folder chosen above is not taken for a Coolify catalog
    w.fill("Source", "coolify/one")
    w.fill("Catalog or Compose file (paste it, or choose its file)", (checkout / "activepieces.yaml").read_text())
    w.button("Preview").click()
    w.wait(lambda: w.one("main form div[aria-live] p").text == "Nothing is stored yet: 1 created.")
    # pasted, it has no file name: named by its first service, as Coolify names its file, its tags kept
    assert w.one("table[aria-label='What the import would do'] tbody td").text == "Activepieces"
    w.button("Import").click()
    w.wait(lambda: w.all("table[aria-label='What the import did'] a"))
    [pasted] = client.get("/blueprints?name=Activepieces", user="admin").json["items"]
    assert pasted["source"]["key"] == "activepieces" and pasted["tags"] == [
        "workflow",
        "automation",
        "no-code",
        "open-source",
    ]
    w.control("Source").clear()
    w.control("Catalog or Compose file (paste it, or choose its file)").clear()
    catalog_folder = "The catalog: a folder (a checkout of the platform repository, its templates, or one template)"
    w.control(catalog_folder).send_keys(str(w.downloads.parent / "coolify"))
    w.wait(lambda: w.control("Source").get_attribute("value") == "coolify")
    w.button("Preview").click()
    w.wait(lambda: w.one("main form div[aria-live] p").text == "Nothing is stored yet: 1 created, 1 skipped.")
    assert "ignore: true" in w.one("table[aria-label='What the import would do'] tr.outcome-skipped").text
    w.check_page("import-coolify")
