# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# The analysis accelerator of the shape set with 一五十 (rule option ``yiwushi``, RULES.md R9.3): the same C source
# as ``paohuzi._accel``, compiled as a second module so that it has its own tables (set up by
# ``paohuzi.analysis`` with ``pure.accel_tables(1)``) and its own memo. Nothing else lives here.
include "_accel.pyx"
