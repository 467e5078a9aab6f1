"""The profiles page (#/profiles) in headless Chromium: each profile's caps, usage bars, cost and
instances; a create whose bad cap is named, an edit, the default made, and what fits."""

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from support.pages import MARKS

pytestmark = MARKS


def test_profiles_show_their_usage_and_are_created_edited_and_made_default(person, seeded):
    """roomy with an instance in it; a profile created, edited and made alice's default."""
    w, (client, template, profiles, *_) = person, seeded
    values = {"WEB_REPLICAS": 3, "WEB_MEMORY": "1G"}
    body = {"name": "acme-shop", "blueprint": template["id"], "profile": profiles["roomy"]["id"], "values": values}
    assert client.post("/instances", json=body, user="alice").status == 201
    w.go("#/profiles")
    w.sign_in("alice")
    w.wait(lambda: w.heading() == "Profiles" and len(w.all("ul[aria-label=Profiles] > li")) == 3)
    assert w.one("h1 + p.note").text.startswith("A team's budget: caps on memory, CPU, containers and storage")
    cards = w.all("ul[aria-label=Profiles] > li")
    roomy = next(c for c in cards if c.find_element(By.CSS_SELECTOR, "h3").text == "roomy")
    bars = roomy.find_elements(By.CSS_SELECTOR, "ul.usage li")
    assert [b.text for b in bars][2] == "containers: 6 containers of 10 containers"
    assert "1 instance" in roomy.text
    spent = client.get(f"/profiles/{profiles['roomy']['id']}", user="alice").json["usage"]["monthly"]
    assert spent > 0 and f"costs {spent:.2f} EUR a month" in roomy.text
    w.fill("Name", "browser-profile")
    w.fill("Memory cap", "lots")
    w.button("Create").click()
    w.wait(lambda: "memoryCap" in w.one("main").text)
    w.console(422)
    w.fill("Memory cap", "2Gi")
    w.fill("CPU cap", "1.5")
    w.view(lambda: w.button("Create").click())
    w.wait(lambda: "browser-profile" in w.one("ul[aria-label=Profiles]").text)
    assert "2 GiB memory, 1.5 CPUs" in w.one("ul[aria-label=Profiles]").text
    w.one("button[aria-label='Edit browser-profile']").click()
    w.wait(lambda: w.control("Name").get_attribute("value") == "browser-profile")
    w.fill("CPU cap", "3")
    w.fill("Default memory per container", "128Mi")
    w.fill("Most CPU per container", "2")
    w.fill("Shared with (usernames)", "bob")
    assert Select(w.control("Pod security")).first_selected_option.get_attribute("value") == "baseline"
    Select(w.control("Pod security")).select_by_value("restricted")
    w.view(lambda: w.button("Save").click())
    w.wait(
        lambda: (
            "2 GiB memory, 3 CPUs, a container declaring none counts 128 MiB, at most per container 2 CPUs"
            in w.one("ul[aria-label=Profiles]").text
            and "shared with bob" in w.one("ul[aria-label=Profiles]").text
            and "pod security: restricted" in w.one("ul[aria-label=Profiles]").text
        )
    )
    saved = client.get("/profiles?name=browser-profile", user="bob").json["items"][0]
    assert saved["containerDefaults"] == {"memory": "128Mi", "cpu": None} and saved["containerMax"]["cpu"] == "2"
    assert saved["podSecurity"] == "restricted"
    w.view(lambda: w.one("button[aria-label='Make browser-profile the default']").click())
    w.wait(lambda: not w.all("button[aria-label='Make browser-profile the default']"))
    defaults = [p["name"] for p in client.get("/profiles?defaultProfile=true", user="alice").json["items"]]
    assert defaults == ["browser-profile"]
    heading, name = w.one("form h2").rect, w.control("Name").rect
    assert heading["y"] + heading["height"] <= name["y"], "the form's heading is not above its fields"
    w.check_page("profiles")
    w.view(lambda: w.one(f"a[href='#/?profile={profiles['roomy']['id']}&fitsOnly=true']").click())
    w.wait(lambda: len(w.cards()) == 50 and w.control("Only those that fit the profile").is_selected())
