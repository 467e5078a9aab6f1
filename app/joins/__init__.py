"""What joins the resources, between their stores and the routes: a blueprint's fit and render to
a profile (to_profile.py) and an instance's admission against its profile's room (admission.py),
the only code that writes an instance."""
