"""Third-party pure-Python packages shipped inside the Lambda code asset, unchanged.

The asset is this source tree as it is (no bundling step: synth stays pure, no Docker, no network), and the Lambda
runtime provides only boto3. So a library the functions need lives here, copied verbatim from its pinned release:

- jwt: PyJWT, the release pinned in requirements-dev.txt (`make vendor` refreshes it; a unit test checks the copy is
  byte for byte the installed release). MIT licence, jwt/LICENSE. Only its HMAC algorithms are used (no
  `cryptography`).
- rfc8785: the JSON Canonicalization Scheme (RFC 8785) of the log records' hashes (hashchain.py), the release
  pinned in requirements-dev.txt, the same way (`make vendor`, a unit test). Apache 2.0, rfc8785/LICENSE.
"""
