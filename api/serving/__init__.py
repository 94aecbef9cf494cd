"""The processes that serve: gunicorn's settings and worker class (``server``,
``problemworker``), the web server's process (``python -m api.serving``, which patches for
gevent first: so this file imports nothing), and ``omerta run``'s supervisor with the children
it finds left over."""
