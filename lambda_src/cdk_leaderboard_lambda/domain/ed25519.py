"""Ed25519 signing (RFC 8032 section 5.1) in pure Python: the public key of a seed and the signature of a message.

Why here and not `cryptography`: that package is compiled (a wheel per platform, 14 MB unpacked for arm64 with
cffi) and the functions' code asset is pure Python, synthesized offline; the well-known pure-Python library
(`ecdsa`) takes most of a second to import. This module only signs: it never checks a signature, so a bug shows as
a signature that fails to verify, never as a forgery accepted. Ed25519 is deterministic, so the tests compare its
signatures byte for byte with `cryptography`'s (tests/unit/test_ed25519.py), and the verifier checks them with
`cryptography` too. Python's integers are not constant-time: the timing of one signature over the network is far
too noisy to recover a key from, and the key rotates (docs/PROVING.md).

Points are in extended coordinates (X, Y, Z, T); the base point's multiples are a table built once at import
(BASE_TABLE, 64 rows of 16): a fixed-base multiplication is then 64 additions.
"""

from __future__ import annotations

import hashlib

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493  # the order of the base point
D = -121665 * pow(121666, -1, P) % P
SEED_BYTES = 32

Point = tuple[int, int, int, int]
IDENTITY: Point = (0, 1, 1, 0)


def _add(a: Point, b: Point) -> Point:
    """a + b on the twisted Edwards curve (RFC 8032 5.1.4, complete: also a doubling)."""
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % P
    bb = (y1 + x1) * (y2 + x2) % P
    cc = 2 * t1 * t2 * D % P
    dd = 2 * z1 * z2 % P
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _base_point() -> Point:
    y = 4 * pow(5, -1, P) % P
    x2 = (y * y - 1) * pow(D * y * y + 1, -1, P) % P
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * pow(2, (P - 1) // 4, P) % P
    if x & 1:  # the base point's x is even
        x = P - x
    return (x, y, 1, x * y % P)


def _table() -> tuple[tuple[Point, ...], ...]:
    rows = []
    base = _base_point()
    for _ in range(64):
        row = [IDENTITY]
        for _ in range(15):
            row.append(_add(row[-1], base))
        rows.append(tuple(row))
        base = _add(row[15], base)  # 16 times this row's base: the next row's
    return tuple(rows)


BASE_TABLE = _table()


def _times_base(scalar: int) -> Point:
    """scalar * B for 0 <= scalar < 2**256: one table entry per 4-bit digit."""
    point = IDENTITY
    for row in BASE_TABLE:
        point = _add(point, row[scalar & 15])
        scalar >>= 4
    return point


def _encode(point: Point) -> bytes:
    x, y, z, _ = point
    zi = pow(z, -1, P)
    x, y = x * zi % P, y * zi % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def _expand(seed: bytes) -> tuple[int, bytes]:
    if len(seed) != SEED_BYTES:
        raise ValueError(f"an Ed25519 private key is {SEED_BYTES} bytes")
    digest = hashlib.sha512(seed).digest()
    scalar = int.from_bytes(digest[:32], "little")
    scalar &= (1 << 254) - 8  # clamp: clear the 3 low bits and bit 255
    scalar |= 1 << 254
    return scalar, digest[32:]


def public_key(seed: bytes) -> bytes:
    """The 32-byte public key of a 32-byte private key (seed)."""
    return _encode(_times_base(_expand(seed)[0]))


def sign(seed: bytes, message: bytes, public: bytes | None = None) -> bytes:
    """The 64-byte Ed25519 signature of `message` (pass `public` when known: it saves a multiplication)."""
    scalar, prefix = _expand(seed)
    public = public or _encode(_times_base(scalar))
    r = int.from_bytes(hashlib.sha512(prefix + message).digest(), "little") % L
    encoded_r = _encode(_times_base(r))
    k = int.from_bytes(hashlib.sha512(encoded_r + public + message).digest(), "little") % L
    return encoded_r + ((r + k * scalar) % L).to_bytes(32, "little")
