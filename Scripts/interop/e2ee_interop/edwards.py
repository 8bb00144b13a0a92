"""edwards25519 point checks in plain integer arithmetic (no secrets involved).

OpenSSL's Ed25519 verification (used through ``cryptography``) accepts small-order points and
non-canonical public keys; PROTOCOL.md §0 requires libsodium's ``crypto_sign_verify_detached``
semantics instead. These helpers supply the extra checks: decoding per RFC 8032 §5.1.3 and
"small order" as libsodium defines it (its blacklist masks the sign bit and also lists the
non-canonical encodings p and p+1 of y = 0 and y = 1).
"""

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = (-121665 * pow(121666, P - 2, P)) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
_Y_MASK = 2**255 - 1


def _recover_x(y: int, sign: int):
    """x for y on the curve with the given parity, or None (RFC 8032 §5.1.3)."""
    u = (y * y - 1) % P
    v = (D * y * y + 1) % P
    x2 = u * pow(v, P - 2, P) % P
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P:
        return None
    if x == 0 and sign:
        return None
    if x & 1 != sign:
        x = P - x
    return x


def decode_point(encoding: bytes):
    """The affine point (x, y), or None if the 32 bytes are not a canonical point encoding."""
    if len(encoding) != 32:
        return None
    value = int.from_bytes(encoding, "little")
    y, sign = value & _Y_MASK, value >> 255
    if y >= P:
        return None
    x = _recover_x(y, sign)
    return None if x is None else (x, y)


def _add(p1, p2):
    """Affine addition on -x^2 + y^2 = 1 + d x^2 y^2 (complete for this curve)."""
    (x1, y1), (x2, y2) = p1, p2
    t = D * x1 * x2 * y1 * y2 % P
    x3 = (x1 * y2 + x2 * y1) * pow(1 + t, P - 2, P) % P
    y3 = (y1 * y2 + x1 * x2) * pow(1 - t, P - 2, P) % P
    return x3, y3


def has_small_order(encoding: bytes) -> bool:
    """libsodium's ``ge25519_has_small_order``: is the point (sign bit ignored) of order ≤ 8?"""
    y = int.from_bytes(encoding, "little") & _Y_MASK
    if y >= P:
        return y in (P, P + 1)
    x = _recover_x(y, 0)
    if x is None:
        return False
    point = (x, y)
    for _ in range(3):
        point = _add(point, point)
    return point == (0, 1)


def is_canonical_y(encoding: bytes) -> bool:
    """libsodium's ``ge25519_is_canonical``: y (sign bit masked) < p."""
    return (int.from_bytes(encoding, "little") & _Y_MASK) < P


def _extended_add(p1, p2):
    """Addition in extended coordinates (X, Y, Z, T) on a = -1 (complete, so it doubles too)."""
    x1, y1, z1, t1 = p1
    x2, y2, z2, t2 = p2
    a = (y1 - x1) * (y2 - x2) % P
    b = (y1 + x1) * (y2 + x2) % P
    c = 2 * D * t1 * t2 % P
    d = 2 * z1 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return e * f % P, g * h % P, f * g % P, e * h % P


def in_prime_order_subgroup(encoding: bytes) -> bool:
    """§0.8's last rule (libsodium's ``crypto_core_ed25519_is_valid_point``): [L]A is the
    identity, so A has no torsion component. False for encodings that do not decode."""
    point = decode_point(encoding)
    if point is None:
        return False
    x, y = point
    base = (x, y, 1, x * y % P)
    result = (0, 1, 1, 0)
    for bit in bin(L)[2:]:
        result = _extended_add(result, result)
        if bit == "1":
            result = _extended_add(result, base)
    rx, ry, rz, _ = result
    return rx % P == 0 and (ry - rz) % P == 0


def is_valid_public_key(encoding: bytes) -> bool:
    """A signing public key as §0 requires when parsed: decodes, y < p, not of small order."""
    return (len(encoding) == 32 and is_canonical_y(encoding)
            and decode_point(encoding) is not None and not has_small_order(encoding))
