"""The browser client of the web table: static files in ``static/`` (served by spieltisch.server)."""
