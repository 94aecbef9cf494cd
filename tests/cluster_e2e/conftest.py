"""The service on the session's cluster (``valkey_cluster``, emptied first), as processes, for a
whole test module: ``tests.cluster_e2e.service``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.cluster import Cluster
from tests.cluster_e2e.service import ClusterService


@pytest.fixture(scope="module")
def service(
    valkey_cluster: Cluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ClusterService]:
    valkey_cluster.flushall()
    running = ClusterService(tmp_path_factory.mktemp("service"), valkey_cluster).start()
    yield running
    running.stop()
