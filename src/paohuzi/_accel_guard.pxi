# Included by each compiled accelerator (``_accel.pyx``, ``_accel_bots.pyx``) after it names its ``SOURCES``:
# the staleness guard, the ``PAOHUZI_PURE`` switch and ``ctz64``, in one place (docs/decisions.md,
# "The compiled accelerator").

import os
import hashlib

cdef extern from *:
    """
    #ifndef PAOHUZI_SOURCE_SHA256
    #define PAOHUZI_SOURCE_SHA256 ""
    #endif
    #if defined(__GNUC__) || defined(__clang__)
    static inline int paohuzi_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    #else
    static inline int paohuzi_ctz64(unsigned long long x) { int n = 0; while (!(x & 1ULL)) { x >>= 1; n++; } return n; }
    #endif
    """
    const char *_BUILT_FROM "PAOHUZI_SOURCE_SHA256"
    int ctz64 "paohuzi_ctz64"(unsigned long long x) nogil

#: sha256 of the ``SOURCES`` this module was compiled from, in order (set by setup.py; empty if built otherwise).
SOURCE_SHA256 = _BUILT_FROM.decode("ascii")


def source_matches():
    """True unless the ``SOURCES`` lie next to this module and differ from those it was built from."""
    here = os.path.dirname(os.path.abspath(__file__))
    paths = [os.path.join(here, name) for name in SOURCES]
    if not all(os.path.exists(path) for path in paths):
        return True  # an installed wheel without its sources: trust the build
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest() == SOURCE_SHA256


def usable():
    """Whether the Python module should use this one: not under ``PAOHUZI_PURE=1``, and not stale."""
    if os.environ.get("PAOHUZI_PURE", "") not in ("", "0"):
        return False
    return source_matches()
