#!/usr/bin/env python3
"""Signs requests with botocore's own AWS Signature Version 4 signer and prints what it added.

Usage: scripts/sigv4-botocore.py < cases.json

Reads a JSON list of requests on standard input, each an object:
  method, url (as sent: the path and query already percent-encoded), headers ([[name, value], ...]),
  body (text, sent as UTF-8), service, region, access_key, secret_key, session_token (or null),
  timestamp (YYYYMMDDTHHMMSSZ), unsigned (true: UNSIGNED-PAYLOAD), content_hash (true: X-Amz-Content-SHA256 is
  sent and signed for a service other than s3, as reqplan's signer sends it by default).
Prints a JSON list, one object per request: the headers botocore set (X-Amz-Date, X-Amz-Content-SHA256,
X-Amz-Security-Token, Authorization; absent ones are null) and its canonical request.

S3 is signed by `S3SigV4Auth` (the path as sent, never normalised), every other service by `SigV4Auth` (the
path normalised and encoded again), with the clock frozen at `timestamp`: what boto3 sends.
Needs botocore (`python3 -m pip install botocore`). AWSSigV4Tests runs it.
"""
import datetime
import hashlib
import json
import sys
from unittest import mock

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials

NAMES = ["X-Amz-Date", "X-Amz-Content-SHA256", "X-Amz-Security-Token", "Authorization"]


def sign(case: dict) -> dict:
    body = case.get("body", "").encode("utf-8")
    request = AWSRequest(method=case["method"], url=case["url"], data=body, headers=dict(case.get("headers", [])))
    credentials = Credentials(case["access_key"], case["secret_key"], case.get("session_token"))
    is_s3 = case["service"] == "s3"
    signer_class = botocore.auth.S3SigV4Auth if is_s3 else botocore.auth.SigV4Auth
    signer = signer_class(credentials, case["service"], case["region"])
    if case.get("unsigned"):
        # What a client configured not to sign payloads sets (S3 reads its config, the others the context).
        request.context["client_config"] = Config(s3={"payload_signing_enabled": False})
        request.context["payload_signing_enabled"] = False
    elif not is_s3 and case.get("content_hash"):
        request.headers["X-Amz-Content-SHA256"] = hashlib.sha256(body).hexdigest()
    now = datetime.datetime.strptime(case["timestamp"], "%Y%m%dT%H%M%SZ")
    with mock.patch.object(botocore.auth, "get_current_datetime", return_value=now):
        signer.add_auth(request)
    result = {name: request.headers.get(name) for name in NAMES}
    # The canonical request as signed: without the Authorization header just added.
    del request.headers["Authorization"]
    canonical = signer.canonical_request(request)
    result["canonical_request"] = canonical
    return result


def main() -> int:
    cases = json.load(sys.stdin)
    json.dump([sign(case) for case in cases], sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
