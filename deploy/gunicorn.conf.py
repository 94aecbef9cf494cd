"""gunicorn configuration for running the API directly::

    REDIS_URL=redis://redis-host:6379/0 \
        gunicorn -c deploy/gunicorn.conf.py 'api.serving.server:site()'

The same settings as ``omerta serve`` (``api.serving.server.settings``); override them with the
environment (OMERTA_BIND, OMERTA_WEB_WORKERS, OMERTA_WEB_CONNECTIONS, OMERTA_ACCESS_LOG) or
gunicorn's own command-line flags. For the metrics of every process (``/metrics``, with
``OMERTA_METRICS_TOKEN``) set ``PROMETHEUS_MULTIPROC_DIR`` to an empty directory of the server's
own, emptied before each start (``omerta serve`` does it: ``<OMERTA_VAR>/metrics/web-<bind>``).
"""

from gevent import monkey

monkey.patch_all()  # first: the app's imports (ssl among them) must get the patched modules

import os  # noqa: E402
import sys  # noqa: E402

from api.serving.server import (  # noqa: E402
    allow_open_files,
    child_exit,  # noqa: F401 (gunicorn's hook)
    settings,
)
from services.platform import config, storecheck  # noqa: E402

found = config.settings(os.environ)  # gunicorn reads this file once, at start
if not storecheck.at_start("web", found):  # an evicting store
    sys.exit(2)
allow_open_files(found)  # in gunicorn's master: its workers inherit the limit
globals().update({k: v for k, v in settings().items() if v is not None})
