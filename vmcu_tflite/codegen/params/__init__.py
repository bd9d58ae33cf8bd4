"""C initializers of each step kind's params struct, one module per op (same stems as `ops/`).

`emit(step, graph, writer, name)` returns `(c_type, initializer)`; constant arrays (weights,
multipliers) go through `writer.array` so they land in flash. Each op's spec names its emitter
(`vmcu_tflite.ops.SPECS`).
"""
