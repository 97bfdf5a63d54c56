"""Helpers shared by plantkey.py and plantcase.py (gputriage issue 19): what a
collective kernel is, its kind and bytes, NCCL's bus factors, by the
definitions of docs/artifacts.md. Standard library only; shares no code with
the analyzer (an independent reading of the trace JSON)."""
import decimal, gzip, json, re

D = decimal.Decimal
GPU = ("kernel", "gpu_memcpy", "gpu_memset")
SIZES = {1: "Bool Byte Char QInt8 QUInt8 UInt8 Int8 Float8_e4m3fn Float8_e5m2 Float8_e4m3fnuz Float8_e5m2fnuz",
         2: "Short Half BFloat16 UInt16 Int16", 4: "Int Float QInt32 UInt32 ComplexHalf",
         8: "Long Double ComplexFloat UInt64", 16: "ComplexDouble"}
SIZE = {n: s for s, names in SIZES.items() for n in names.split()}
# NCCL/RCCL kernels (ncclDevKernel_AllReduce_…, ncclKernel_SendRecv_…, RCCL's
# rcclGenericKernel / ncclDevKernel_Generic_1), RCCL's MSCCL kernels
COLLRE = re.compile(r"nccl|rccl|msccl", re.I)
KIND_FRAGS = (("allreduce", "allreduce"), ("all_reduce", "allreduce"), ("reducescatter", "reducescatter"),
              ("reduce_scatter", "reducescatter"), ("allgather", "allgather"), ("all_gather", "allgather"),
              ("alltoall", "alltoall"), ("sendrecv", "sendrecv"), ("broadcast", "broadcast"),
              ("_send", "sendrecv"), ("_recv", "sendrecv"), ("_reduce_", "reduce"))


def is_coll(e):
    return e.get("cat") == "kernel" and e.get("ph") == "X" and bool(
        COLLRE.search(e.get("name", "")) or "Collective name" in (e.get("args") or {}))


def is_launch(e):
    c = e.get("cat", "")
    return c.endswith("_runtime") or c.endswith("_driver") or c in ("runtime", "driver")


def kind_of(e, cpu_args=None):
    """(kind, args): args are the kernel's over its CPU op's (by External id)."""
    a = dict((cpu_args or {}).get((e.get("args") or {}).get("External id"), {}))
    a.update(e.get("args") or {})
    c = a.get("Collective name")
    if c:
        k = c.lower().lstrip("_")
        for suf in ("_coalesced", "_base", "_into_tensor", "_tensor"):
            if k.endswith(suf):
                k = k[: -len(suf)]
        k = k.replace("_", "")
        return {"send": "sendrecv", "recv": "sendrecv", "alltoallv": "alltoall"}.get(k, k), a
    n = e["name"].lower()
    for frag, kind in KIND_FRAGS:
        if frag in n:
            return kind, a
    return "collective", a


def factor(kind, n):
    if n <= 1:
        return 1.0
    if kind == "allreduce":
        return 2 * (n - 1) / n
    if kind in ("allgather", "reducescatter", "alltoall"):
        return (n - 1) / n
    return 1.0


def nbytes(a):
    """max(In, Out msg nelems) x dtype size, None when unknown."""
    nel = max(int(a.get("In msg nelems", 0) or 0), int(a.get("Out msg nelems", 0) or 0))
    size = SIZE.get(a.get("dtype", ""), 0)
    return nel * size if nel and size else None


def load(path):
    """A trace document, numbers exact (decimal.Decimal)."""
    with gzip.open(path) if path.endswith(".gz") else open(path, "rb") as f:
        return json.load(f, parse_float=D, parse_int=D)
