"""TFLite Micro, the oracle: run a model with `tflite-micro` and read its outputs and tensors.

`tflite-micro` is only needed for comparisons (`vmcu-run --compare-tflm`, `vmcu-validate`, the
report's arena figure, the tests), so it is imported lazily and its absence is reported as a
usage error. A model with an operator TFLite Micro has no kernel for (TILE) is run by TFLite
itself instead: LiteRT's interpreter (`ai-edge-litert`) with its reference kernels, the ones
TFLite Micro's are ported from (its optimized ones round a conv differently); `oracle_name` says
which interpreter checks a model.

TFLite Micro is native code: on a model it refuses it returns an error after printing the
reason on stderr, and on some corrupt models it crashes the process. So every call runs in a
worker process with its stderr captured: a refusal or a crash becomes an `OracleError` (exit 2,
one line, TFLite Micro's own reason), never a traceback or a dead tool. Its arena is sized from
the model: twice the bytes of all its activations, enough for any of TFLite Micro's plans.
"""
from __future__ import annotations

import importlib.util
import os
import pickle
import re
import select
import subprocess
import sys
import tempfile
from typing import Any, Sequence

import flatbuffers
import numpy as np
import tflite

from .errors import ModelError, UsageError

ORACLE_SECONDS = 600  # longest TFLite Micro may take on one model before it counts as hung
# Operators TFLite Micro has no kernel for, which LiteRT's reference kernels run.
NOT_IN_TFLM = frozenset({"TILE"})
TFLM, LITERT = "TFLite Micro", "TFLite (LiteRT)"
_BUILTIN_NAMES = {v: k for k, v in vars(tflite.BuiltinOperator).items() if not k.startswith("_")}
_ITEMSIZE = {tflite.TensorType.FLOAT32: 4, tflite.TensorType.INT32: 4, tflite.TensorType.INT64: 8,
             tflite.TensorType.INT16: 2, tflite.TensorType.FLOAT16: 2}


class OracleError(ModelError):
    """TFLite Micro refuses the model or crashes on it: we do not run what the oracle cannot."""


def builtin_code(code: tflite.OperatorCode) -> int:
    """TFLite's GetBuiltinCode: the larger of builtin_code and the deprecated byte (codes above 127
    live only in builtin_code; older files fill only the byte). The `tflite` package's accessor
    returns the byte whenever builtin_code is below 127, even when the two disagree, so the field
    is read here as TFLite reads it (the reader and the choice of oracle both read it so)."""
    at = code._tab.Offset(10)  # builtin_code: field 3 of OperatorCode
    raw = code._tab.Get(flatbuffers.number_types.Int32Flags, at + code._tab.Pos) if at else 0
    return max(raw, code.DeprecatedBuiltinCode())


def _operator_names(model: bytes) -> set[str]:
    root = tflite.Model.GetRootAsModel(model, 0)
    names = set()
    for i in range(root.OperatorCodesLength()):
        code = root.OperatorCodes(i)
        names.add(_BUILTIN_NAMES.get(builtin_code(code), "CUSTOM"))
    return names


def oracle_name(model: bytes) -> str:
    """Which interpreter checks `model`: TFLite Micro, unless it lacks one of the model's operators."""
    try:
        return LITERT if _operator_names(model) & NOT_IN_TFLM else TFLM
    except Exception:  # a corrupt model: TFLite Micro refuses it in its own words
        return TFLM


def _runtime():
    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError:
        raise UsageError("the TFLite Micro oracle is not installed (pip install tflite-micro)") from None
    return runtime


def arena_bytes(model: bytes) -> int:
    """An arena for TFLite Micro: twice every activation's bytes (it never needs more than all of
    them at once, even keeping every tensor), plus room for its own structures."""
    root = tflite.Model.GetRootAsModel(model, 0)
    subgraph = root.Subgraphs(0)
    total = 0
    for i in range(subgraph.TensorsLength()):
        t = subgraph.Tensors(i)
        buffer = root.Buffers(t.Buffer())
        if buffer is not None and (buffer.DataLength() or buffer.Offset() > 1):
            continue  # a constant: TFLite Micro reads it from the flatbuffer
        if t.ShapeLength():
            total += int(np.prod(t.ShapeAsNumpy(), dtype=np.int64)) * _ITEMSIZE.get(t.Type(), 1)
    return 2 * total + 512 * subgraph.TensorsLength() + (1 << 20)


def _interpreter(model: bytes, preserve_all: bool):
    runtime = _runtime()
    config = (runtime.InterpreterConfig.kPreserveAllTensors if preserve_all
              else runtime.InterpreterConfig.kAllocationRecording)
    return runtime.Interpreter.from_bytes(model, arena_size=arena_bytes(model), intrepreter_config=config)


_worker: subprocess.Popen | None = None


def _isolated(name: str, *args) -> Any:
    """The oracle function `name`(*args) run in the worker process (`oracle_worker.py`), or
    OracleError with the oracle's reason.

    The worker is a fresh interpreter started once and reused (a fork of a process whose other
    threads hold locks can hang, and a new interpreter per call costs a second); when TFLite
    Micro kills it, the next call starts another."""
    global _worker
    who = oracle_name(args[0]) if name == "_run_sequence" else TFLM  # the arena is TFLite Micro's alone
    if importlib.util.find_spec("tflite_micro") is None:  # a usage error here, not a dead worker
        _runtime()
    if who == LITERT and importlib.util.find_spec("ai_edge_litert") is None:
        raise UsageError(f"this model needs {LITERT} as its oracle (pip install ai-edge-litert)")
    if _worker is None or _worker.poll() is not None:
        _worker = subprocess.Popen([sys.executable, "-m", "vmcu_tflite.oracle_worker"], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    with tempfile.NamedTemporaryFile(prefix="vmcu-tflm-", suffix=".log") as stderr:
        try:
            pickle.dump((name, args, stderr.name), _worker.stdin)
            _worker.stdin.flush()
            ready = select.select([_worker.stdout], [], [], ORACLE_SECONDS)[0]
            if not ready:
                _worker.kill()
                raise OracleError(f"{who} gave no answer within {ORACLE_SECONDS} s")
            status, value = pickle.load(_worker.stdout)
        except (EOFError, BrokenPipeError, pickle.UnpicklingError):
            _worker.kill()
            _worker.wait()
            raise OracleError(f"{who} crashed on this model (exit {_worker.returncode}): "
                              f"{_reason(stderr.name, 'no output')}") from None
        if status == "ok":
            return value
        raise OracleError(f"{who} refuses this model: {_reason(stderr.name, value)}")


def _reason(stderr_path: str, fallback: str) -> str:
    """TFLite Micro's first printed line (where it says what it refuses), else `fallback`."""
    with open(stderr_path, errors="replace") as printed:
        lines = [line.strip() for line in printed if line.strip()]
    return lines[0] if lines else (fallback.splitlines() or ["no output"])[0]


class _Tflm:
    """One TFLite Micro interpreter (its variable tensors persist between invocations)."""

    def __init__(self, model: bytes, preserve_all: bool) -> None:
        self.interpreter = _interpreter(model, preserve_all)

    def invoke(self, inputs: Sequence[np.ndarray]) -> None:
        for i, x in enumerate(inputs):
            self.interpreter.set_input(x, i)
        self.interpreter.invoke()

    def output(self, i: int) -> np.ndarray:
        return np.array(self.interpreter.get_output(i))

    def tensor(self, t: int) -> np.ndarray:
        return np.array(self.interpreter.GetTensor(t, 0)["tensor_data"])


class _Litert:
    """LiteRT's interpreter with its reference kernels (`BUILTIN_REF`), for operators TFLite Micro
    lacks. The reference resolver registers TILE only up to version 2 while the converter writes
    an int8 TILE as version 3 (the kernel is one and copies bytes whatever the type), so the
    oracle's copy of the model says version 2 for those."""

    def __init__(self, model: bytes, preserve_all: bool) -> None:
        try:
            from ai_edge_litert.interpreter import Interpreter, OpResolverType
        except ImportError:
            raise UsageError(f"this model needs {LITERT} as its oracle (pip install ai-edge-litert)") from None
        self.interpreter = Interpreter(model_content=_with_ref_versions(model), experimental_op_resolver_type=
                                       OpResolverType.BUILTIN_REF, experimental_preserve_all_tensors=preserve_all)
        self.interpreter.allocate_tensors()

    def invoke(self, inputs: Sequence[np.ndarray]) -> None:
        for detail, x in zip(self.interpreter.get_input_details(), inputs):
            self.interpreter.set_tensor(detail["index"], np.asarray(x, dtype=detail["dtype"]))
        self.interpreter.invoke()

    def output(self, i: int) -> np.ndarray:
        return np.array(self.interpreter.get_tensor(self.interpreter.get_output_details()[i]["index"]))

    def tensor(self, t: int) -> np.ndarray:
        return np.array(self.interpreter.get_tensor(t))


_OPCODE_VERSION_FIELD = 8  # OperatorCode.version's vtable slot in the schema


def _with_ref_versions(model: bytes) -> bytes:
    """`model` with every operator code at version 1 (patched in place). TFLite Micro ignores
    operator versions and so does the converter; LiteRT's reference resolver registers each
    operator from version 1 up to a bound of its own (TILE's is 2), and refuses a model naming
    any other."""
    data = bytearray(model)
    root = tflite.Model.GetRootAsModel(model, 0)
    for i in range(root.OperatorCodesLength()):
        code = root.OperatorCodes(i)
        field = code._tab.Offset(_OPCODE_VERSION_FIELD)
        if field and code.Version() != 1:
            at = code._tab.Pos + field
            data[at:at + 4] = (1).to_bytes(4, "little")
    return bytes(data)


def _run_sequence(model: bytes, runs: Sequence[Sequence[np.ndarray]], num_outputs: int, tensors: Sequence[int]):
    engine = (_Litert if oracle_name(model) == LITERT else _Tflm)(model, preserve_all=bool(tensors))
    results = []
    for inputs in runs:
        engine.invoke(inputs)
        outputs, values = [engine.output(i) for i in range(num_outputs)], {t: engine.tensor(t) for t in tensors}
        _zero_undefined_detections(model, outputs, values)
        results.append((outputs, values))
    return results


POSTPROCESS = b"TFLite_Detection_PostProcess"


def _zero_undefined_detections(model: bytes, outputs: list[np.ndarray], values: dict[int, np.ndarray]) -> None:
    """TFLite Micro's TFLite_Detection_PostProcess (fast non-max suppression) writes only the first
    num_detections slots of its boxes, classes and scores; the others keep what its arena held
    before (another tensor's bytes), which no application may read. They are given here as zeros,
    what the converted model writes there, so that every comparison covers every slot the kernel
    defines, exactly, and no undefined one. (Its regular suppression writes zeros there itself.)"""
    root = tflite.Model.GetRootAsModel(model, 0)
    subgraph = root.Subgraphs(0)
    position = {int(t): i for i, t in enumerate(subgraph.OutputsAsNumpy())} if not subgraph.OutputsIsNone() else {}

    def held(t: int):
        if t in position and position[t] < len(outputs):
            return [(outputs, position[t])] + ([(values, t)] if t in values else [])
        return [(values, t)] if t in values else []

    for i in range(subgraph.OperatorsLength()):
        op = subgraph.Operators(i)
        code = root.OperatorCodes(op.OpcodeIndex())
        if code.CustomCode() != POSTPROCESS or op.OutputsLength() != 4:
            continue
        boxes, classes, scores, count = (int(t) for t in op.OutputsAsNumpy())
        found = held(count)
        if not found:
            continue
        where, key = found[0]
        detections = np.asarray(where[key], dtype=np.float32).reshape(-1)
        if detections.size != 1 or not 0 <= detections[0] <= 1 << 20:
            continue
        defined = int(detections[0])
        for t, width in ((boxes, 4), (classes, 1), (scores, 1)):
            for where, key in held(t):
                flat = np.array(where[key]).reshape(-1)
                flat[defined * width:] = 0
                where[key] = flat.reshape(np.shape(where[key]))


def run_tflm(model: bytes, inputs: Sequence[np.ndarray], num_outputs: int, tensors: Sequence[int] = ()):
    """Invoke the oracle once; returns (outputs, {tensor index: values}) for the asked tensors."""
    return run_tflm_sequence(model, [inputs], num_outputs, tensors)[0]


def run_tflm_sequence(model: bytes, runs: Sequence[Sequence[np.ndarray]], num_outputs: int,
                      tensors: Sequence[int] = ()) -> list[tuple[list[np.ndarray], dict[int, np.ndarray]]]:
    """Invoke one oracle interpreter on each run's inputs in turn: its variable tensors (an LSTM's
    state) carry from one run to the next. Returns each run's (outputs, {tensor: values})."""
    return _isolated("_run_sequence", model, [list(r) for r in runs], num_outputs, list(tensors))


def _arena(model: bytes, inputs: Sequence[np.ndarray]) -> str:
    interpreter = _interpreter(model, preserve_all=False)
    for i, x in enumerate(inputs):
        interpreter.set_input(x, i)
    interpreter.invoke()
    with tempfile.TemporaryFile() as capture:
        saved = os.dup(2)
        os.dup2(capture.fileno(), 2)
        try:
            interpreter.print_allocations()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        capture.seek(0)
        return capture.read().decode(errors="replace")


def tflm_arena_bytes(model: bytes, inputs: Sequence[np.ndarray]) -> dict[str, int]:
    """TFLite Micro's arena use ("head" = activations, "tail" = persistent, "total"), as it prints it;
    OracleError for a model with an operator it has no kernel for."""
    lacking = _operator_names(model) & NOT_IN_TFLM
    if lacking:
        raise OracleError(f"TFLite Micro has no kernel for {', '.join(sorted(lacking))}: it has no arena to measure")
    found = dict(re.findall(r"Arena allocation (total|head|tail) (\d+) bytes", _isolated("_arena", model, list(inputs))))
    return {k: int(v) for k, v in found.items()}
