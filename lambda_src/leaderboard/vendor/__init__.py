"""Third-party pure-Python packages shipped inside the Lambda code asset, unchanged.

The asset is this source tree as it is (no bundling step: synth stays pure, no Docker, no network), and the Lambda
runtime provides only boto3. So a library the functions need lives here, copied verbatim from its pinned release:

- jwt: PyJWT, the release pinned in requirements-dev.txt (`make vendor` refreshes it; a unit test checks the copy is
  byte for byte the installed release). MIT licence, jwt/LICENSE. Only its HMAC algorithms are used (no
  `cryptography`).
"""
