"""Scraping a process's ``/metrics`` in a test (``tests/api/test_metrics.py``, the workers'
tests): its figures by sample name and labels, and every sample name it can export."""

from __future__ import annotations

import http.client
from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

Figures = dict[tuple[str, frozenset[tuple[str, str]]], float]


@dataclass
class Scrape:
    figures: Figures  # (sample name, labels) -> value
    exported: set[str]  # every sample name the families can have, observed or not

    def value(self, name: str, **labels: str) -> float:
        return self.figures.get((name, frozenset(labels.items())), 0.0)

    def has(self, name: str, **labels: str) -> bool:
        return (name, frozenset(labels.items())) in self.figures


SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum"), "gauge": ("",)}


def parse(text: str) -> Scrape:
    figures: Figures = {}
    exported: set[str] = set()
    for family in text_string_to_metric_families(text):
        exported |= {family.name + s for s in SUFFIXES.get(family.type, ("",))}
        for sample in family.samples:
            figures[(sample.name, frozenset(sample.labels.items()))] = sample.value
            exported.add(sample.name)
    return Scrape(figures, exported)


def get(port: int, path: str, token: str | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def scrape(port: int, token: str | None = None) -> Scrape:
    status, body = get(port, "/metrics", token)
    assert status == 200, body
    return parse(body.decode())
