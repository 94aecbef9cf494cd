"""gunicorn configuration for running the API directly::

    REDIS_URL=redis://redis-host:6379/0 gunicorn -c deploy/gunicorn.conf.py 'api.server:site()'

The same settings as ``omerta serve`` (``api.server.settings``); override them with the
environment (OMERTA_BIND, OMERTA_WEB_WORKERS, OMERTA_WEB_CONNECTIONS, OMERTA_ACCESS_LOG) or
gunicorn's own command-line flags.
"""

from gevent import monkey

monkey.patch_all()  # first: the app's imports (ssl among them) must get the patched modules

from api.server import settings  # noqa: E402

globals().update({k: v for k, v in settings().items() if v is not None})
