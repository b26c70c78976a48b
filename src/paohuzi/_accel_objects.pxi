# Included by ``_accel.pyx`` (after its tables and setup(), before the memo): the objects it builds in C.
# One compilation unit with it; split from it by responsibility, as ``_accel_guard.pxi`` is.

# ---------------------------------------------------------------------------------------------------
# Frozen slots dataclasses built in C (Arrangement here; Score and Win for scoring): the instance is
# allocated and its slots filled directly, as the generated __init__ does through object.__setattr__.
# Only for classes whose generated __init__ does nothing else (checked by maker()).
# ---------------------------------------------------------------------------------------------------

cdef class Maker:
    """Builds instances of one frozen slots dataclass from its field values, in field order."""
    cdef PyTypeObject *tp
    cdef readonly object cls
    cdef readonly Py_ssize_t n
    cdef Py_ssize_t off[24]

    cdef inline object make3(self, object a, object b, object c, object d):
        cdef object obj = PyType_GenericAlloc(self.tp, 0)
        cdef char *base = <char *><PyObject *>obj
        Py_INCREF(a)
        (<PyObject **>(base + self.off[0]))[0] = <PyObject *>a
        Py_INCREF(b)
        (<PyObject **>(base + self.off[1]))[0] = <PyObject *>b
        Py_INCREF(c)
        (<PyObject **>(base + self.off[2]))[0] = <PyObject *>c
        Py_INCREF(d)
        (<PyObject **>(base + self.off[3]))[0] = <PyObject *>d
        return obj

    def __call__(self, *args):
        cdef Py_ssize_t i
        cdef object v
        if len(args) != self.n:
            raise TypeError(f"{self.cls.__name__} takes {self.n} values, got {len(args)}")
        cdef object obj = PyType_GenericAlloc(self.tp, 0)
        cdef char *base = <char *><PyObject *>obj
        for i in range(self.n):
            v = <object>PyTuple_GET_ITEM(args, i)
            Py_INCREF(v)
            (<PyObject **>(base + self.off[i]))[0] = <PyObject *>v
        return obj


cdef Py_ssize_t slot_offset(object cls, str name) except -2:
    """Where the slot ``name`` of ``cls`` instances lies, or -1 if it is not a plain ``__slots__`` member."""
    import types
    desc = cls.__dict__.get(name)
    if type(desc) is not types.MemberDescriptorType:
        return -1
    cdef PyMemberDescrObject *d = <PyMemberDescrObject *>desc
    if d.d_member.type != 16:  # T_OBJECT_EX, the kind of slot __slots__ makes
        return -1
    return d.d_member.offset


def maker(cls):
    """A :class:`Maker` for ``cls``, or None unless it is a frozen slots dataclass whose instances hold exactly
    its fields, all set by ``__init__`` (no ``__post_init__``, no other slots, plain ``object.__new__``)."""
    import dataclasses
    import types
    if type(cls) is not type or not dataclasses.is_dataclass(cls) or not cls.__dataclass_params__.frozen:
        return None
    if hasattr(cls, "__post_init__") or cls.__new__ is not object.__new__ or cls.__base__ is not object:
        return None
    fields = dataclasses.fields(cls)
    if len(fields) > 24 or any(not f.init for f in fields) or tuple(cls.__dict__.get("__slots__", ())) != tuple(
        f.name for f in fields
    ):
        return None
    cdef Maker m = Maker.__new__(Maker)
    cdef PyMemberDescrObject *d
    m.cls = cls
    m.tp = <PyTypeObject *>cls
    m.n = len(fields)
    for i, f in enumerate(fields):
        desc = cls.__dict__[f.name]
        if type(desc) is not types.MemberDescriptorType:
            return None
        d = <PyMemberDescrObject *>desc
        if d.d_member.type != 16:  # T_OBJECT_EX, the kind of slot __slots__ makes
            return None
        m.off[i] = d.d_member.offset
    return m
