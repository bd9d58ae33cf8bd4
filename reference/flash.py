"""A step's params as the generated C holds them in flash, read back from the emitted C text.

The reference interpreter executes a kernel description's FlashLoad, InitBias, Requantize and
AddResidual over the very constants the C reads: it runs the step's params emitter
(`vmcu_tflite/codegen/params/`) and parses what it wrote, arrays and struct initializers alike,
instead of taking the converter's numpy arrays. A filter padded, reordered or typed differently
in the C than the description assumes is then wrong in Python too.

Descriptions name constants by C expressions (`p->filter`, `p->conv[1]->requant.multiplier`,
`(int8_t)(-p->input_offset)`); `FlashImage.evaluate` reads them: member access (`->`, `.`),
indexing, unary minus, integer casts and literals, which is all the descriptions write.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from vmcu_tflite.codegen.cwriter import CWriter
from vmcu_tflite.ops import SPECS

INT_TYPES = {"int8_t": np.int8, "uint8_t": np.uint8, "int16_t": np.int16, "uint16_t": np.uint16,
             "int32_t": np.int32, "uint32_t": np.uint32, "int64_t": np.int64}
_ARRAY = re.compile(r"static const (\w+) (\w+)\[(\d+)\] = \{(.*?)\};", re.S)
_STRUCT = re.compile(r"static const (\w+) (\w+) = (\{.*\});")
_POINTERS = re.compile(r"static const \w+ \*const (\w+)\[(\d+)\] = \{(.*)\};")
_TOKEN = re.compile(r"\s*(->|INT32_MIN|[A-Za-z_]\w*|-?\d+(?:\.\d*)?(?:e-?\d+)?f?|[{}()\[\].,=&*-])")


@dataclass(frozen=True)
class FlashArray:
    """A const array of the model's C file: its C type and values (one flash table)."""

    name: str
    ctype: str
    values: np.ndarray

    def as_type(self, ctype: str) -> np.ndarray:
        """The array's bytes read through a pointer of C type `ctype` (the bias is a `const void *`
        that the kernel reads as int16_t or int32_t): little-endian, as on every target."""
        if ctype == self.ctype:
            return self.values
        raw = self.values.astype(self.values.dtype.newbyteorder("<")).tobytes()
        usable = len(raw) // np.dtype(INT_TYPES[ctype]).itemsize * np.dtype(INT_TYPES[ctype]).itemsize
        return np.frombuffer(raw[:usable], dtype=np.dtype(INT_TYPES[ctype]).newbyteorder("<")).astype(INT_TYPES[ctype])


@dataclass
class FlashImage:
    """The symbols of one step's emitted params and the root struct `p` the kernel receives."""

    root: dict
    symbols: dict[str, object] = field(default_factory=dict)

    def evaluate(self, expression: str):
        """The value of a C expression over `p`: an int, a FlashArray, or a struct (a dict)."""
        parser = _Parser(_tokens(expression), self)
        value = parser.unary()
        if parser.peek() is not None:
            raise ValueError(f"cannot read the C expression {expression!r} (stops at {parser.peek()!r})")
        return value

    def integer(self, expression: str) -> int:
        value = self.evaluate(expression)
        if not isinstance(value, int):
            raise ValueError(f"{expression!r} is not an integer in the emitted params")
        return value

    def array(self, expression: str, ctype: str = "int8_t") -> np.ndarray:
        """The values a pointer of type `ctype` to the array `expression` reads."""
        value = self.evaluate(expression)
        if not isinstance(value, FlashArray):
            raise ValueError(f"{expression!r} is not an array in the emitted params")
        return value.as_type(ctype)

    def resolve(self, value):
        """A symbol's value where an initializer names it (`&name` or a bare array name)."""
        while isinstance(value, str):
            if value not in self.symbols:
                raise ValueError(f"the emitted params name {value!r}, which they do not define")
            value = self.symbols[value]
        return value


def flash_image(step, graph) -> FlashImage:
    """Emit the step's params as `vmcu-convert` does and read them back from the C text."""
    writer = CWriter("m")
    _, initializer = SPECS[step.kernel].emit(step, graph, writer, f"step{step.index}")
    image = FlashImage(root={})
    text = writer.text()
    for ctype, name, count, body in _ARRAY.findall(text):
        items = [item.strip() for item in body.split(",") if item.strip()]
        values = np.array([-(1 << 31) if v == "INT32_MIN" else int(v) for v in items], dtype=np.int64)
        if len(values) != int(count) or ctype not in INT_TYPES:
            raise ValueError(f"cannot read the emitted array {name}")
        typed = values.astype(INT_TYPES[ctype])
        if not np.array_equal(typed.astype(np.int64), values):
            raise ValueError(f"the emitted array {name} holds values outside {ctype}")
        image.symbols[name] = FlashArray(name, ctype, typed)
    for _, name, init in _STRUCT.findall(text):
        image.symbols[name] = _Parser(_tokens(init), image).initializer()
    for name, _, items in _POINTERS.findall(text):
        image.symbols[name] = _Parser(_tokens("{" + items + "}"), image).initializer()
    image.root = _Parser(_tokens(initializer), image).initializer()
    return image


def _tokens(text: str) -> list[str]:
    tokens, at = [], 0
    while at < len(text):
        match = _TOKEN.match(text, at)
        if match is None:
            if text[at:].strip():
                raise ValueError(f"cannot read the C text {text[at:at + 20]!r}")
            break
        tokens.append(match.group(1))
        at = match.end()
    return tokens


class _Parser:
    """Recursive descent over C initializers and the descriptions' constant expressions."""

    def __init__(self, tokens: list[str], image: FlashImage) -> None:
        self.tokens, self.at, self.image = tokens, 0, image

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise ValueError(f"expected {expected or 'a token'} in C text, found {token!r}")
        self.at += 1
        return token

    # -- initializers: {.a = 1, .b = {...}, .c = name}, {1, 2}, {&s, 0} -------------------------

    def initializer(self):
        if self.peek() != "{":
            return self.scalar()
        self.take("{")
        fields: dict = {}
        items: list = []
        while self.peek() != "}":
            if self.peek() == ".":
                self.take(".")
                name = self.take()
                self.take("=")
                fields[name] = self.initializer()
            else:
                items.append(self.initializer())
            if self.peek() == ",":
                self.take(",")
        self.take("}")
        if fields and items:
            raise ValueError("a C initializer mixes designated and positional members")
        return fields if fields else items

    def scalar(self):
        token = self.take()
        if token == "&":
            return self.take()  # a symbol's name, resolved when read
        if token == "INT32_MIN":
            return -(1 << 31)
        if re.fullmatch(r"-?\d+", token):
            return int(token)
        if re.fullmatch(r"-?[\d.e-]+f?", token):
            return float(token.rstrip("f"))
        return None if token == "NULL" else token  # a symbol's name

    # -- expressions: p->conv[1]->filter, (int8_t)(-p->input_offset), 0 ------------------------

    def unary(self):
        if self.peek() == "-":
            self.take("-")
            return -self._integer(self.unary())
        if self.peek() == "(" and self.at + 2 < len(self.tokens) and self.tokens[self.at + 1] in INT_TYPES \
                and self.tokens[self.at + 2] == ")":
            self.take("(")
            ctype = self.take()
            self.take(")")
            return int(np.array(self._integer(self.unary()), dtype=np.int64).astype(INT_TYPES[ctype]))
        return self.postfix()

    def postfix(self):
        value = self.primary()
        while self.peek() in ("->", ".", "["):
            token = self.take()
            if token == "[":
                index = self._integer(self.unary())
                self.take("]")
                value = self.image.resolve(value)
                if not isinstance(value, list) or not 0 <= index < len(value):
                    raise ValueError(f"index {index} outside a table of the emitted params")
                value = value[index]
            else:
                member = self.take()
                value = self.image.resolve(value)
                if not isinstance(value, dict) or member not in value:
                    raise ValueError(f"the emitted params have no member {member!r} there")
                value = value[member]
        return self.image.resolve(value)

    def primary(self):
        token = self.take()
        if token == "(":
            value = self.unary()
            self.take(")")
            return value
        if token == "p":
            return self.image.root
        if token == "INT32_MIN":
            return -(1 << 31)
        if re.fullmatch(r"-?\d+", token):
            return int(token)
        return token  # a symbol

    def _integer(self, value) -> int:
        value = self.image.resolve(value)
        if not isinstance(value, int):
            raise ValueError("an arithmetic C expression over something that is not an integer")
        return value
