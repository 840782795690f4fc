"""Starts moto's server with its DynamoDB backend operations serialised.

moto runs requests on threads, and its DynamoDB backend is not safe for concurrent use:
`transact_write_items` deep-copies each table at the start and, when a condition fails,
restores that copy -- erasing writes other requests committed meanwhile -- and conditional
writes check and write without a lock. Real DynamoDB makes single-item writes atomic and
isolates transactions, which is what the service relies on and what its concurrency tests
check. One re-entrant lock around the backend's operations restores those guarantees; S3
and SQS keep running concurrently (SQS long polls must not block the rest).

Usage: python scripts/moto_server.py -H 127.0.0.1 -p PORT   (moto_server's own options)
"""

import functools
import threading

from moto.dynamodb.models import DynamoDBBackend

_LOCK = threading.RLock()

_OPERATIONS = [
    "put_item", "update_item", "delete_item", "get_item", "query", "scan",
    "batch_write_item", "batch_get_item", "transact_write_items", "transact_get_items",
]


def _serialised(method):
    @functools.wraps(method)
    def run(*args, **kwargs):
        with _LOCK:
            return method(*args, **kwargs)
    return run


for _name in _OPERATIONS:
    if hasattr(DynamoDBBackend, _name):
        setattr(DynamoDBBackend, _name, _serialised(getattr(DynamoDBBackend, _name)))

if __name__ == "__main__":
    from moto.server import main
    main()
