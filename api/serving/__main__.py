"""The web server's process, what ``omerta serve`` turns into: gevent patches the standard
library before anything else is imported (sockets, ssl and threading, imported first by the
app, would escape the patch, and gevent warns that ssl may then misbehave, e.g. with a
``rediss://`` store), then gunicorn runs the site with the settings given as JSON
(``api.serving.server.settings``)."""

from gevent import monkey

monkey.patch_all()

import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

from api.serving import server  # noqa: E402
from services.platform import config, storecheck  # noqa: E402

if __name__ == "__main__":
    settings = config.settings(os.environ)
    if not storecheck.at_start("serve", settings):
        sys.exit(2)
    server.serve(json.loads(sys.argv[1]), settings)
