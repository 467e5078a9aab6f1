"""What joins the resources, between their stores and the paths: every reading across resources
(across.py, which gives each store what it reads of another); a blueprint's fit and render to a
profile (to_profile.py); an instance's admission against its profile's room (admission.py, the
only code that writes an instance, with what it holds meanwhile in holds.py and what it answers
under faults in outcomes.py); upgrades of many (fleet.py) and a team's spend (spend.py)."""
