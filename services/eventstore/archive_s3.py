"""The archive in an S3-compatible bucket (``OMERTA_ARCHIVE_S3_URL=s3://bucket/prefix``).

One object per game, ``<prefix>/<shard tag>/<game id>.zst``; a ``PUT`` is atomic (the object is
whole or absent). boto3 takes its credentials, region and endpoint from the usual places
(``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_DEFAULT_REGION``, and
``AWS_ENDPOINT_URL`` for a store other than AWS's: MinIO, Ceph, Garage...).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import boto3
from botocore.exceptions import BotoCoreError, ClientError

from services.errors import Unavailable
from services.eventstore import shards


class S3Archive:
    def __init__(self, url: str, client: Any = None) -> None:
        parts = urlsplit(url)
        self.bucket = parts.netloc
        self.prefix = parts.path.strip("/")
        self.s3 = client if client is not None else boto3.client("s3")

    def key(self, game_id: str) -> str:
        name = f"{shards.TAGS[shards.of(game_id)]}/{game_id}.zst"
        return f"{self.prefix}/{name}" if self.prefix else name

    def put(self, game_id: str, data: bytes) -> None:
        with unavailable(game_id):
            self.s3.put_object(Bucket=self.bucket, Key=self.key(game_id), Body=data)

    def get(self, game_id: str) -> bytes | None:
        with unavailable(game_id):
            try:
                answer = self.s3.get_object(Bucket=self.bucket, Key=self.key(game_id))
            except self.s3.exceptions.NoSuchKey:
                return None
            return bytes(answer["Body"].read())


@contextmanager
def unavailable(game_id: str) -> Iterator[None]:
    """The bucket's errors as the service's ``Unavailable`` (503), like the store's."""
    try:
        yield
    except (BotoCoreError, ClientError) as exc:
        raise Unavailable(f"the archive's bucket did not answer for game {game_id}: {exc}") from exc
