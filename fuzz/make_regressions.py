#!/usr/bin/env python3
"""Writes the adversarial files of issue 21 into fuzz/regressions/<target>/ (small versions that commit well).

Usage: fuzz/make_regressions.py CORPUS_DIR [OUT_DIR]
CORPUS_DIR is a fuzz build's seed corpus (build-fuzz/fuzz/corpus): the JPEG and SQLite cases start from the files
Scorch wrote there. Crash inputs found by fuzzing are added next to these by hand (named crash-<target>-<what>).
"""
import ctypes
import ctypes.util
import json
import os
import struct
import sys
import zlib

CORPUS = sys.argv[1]
OUT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "regressions")


def write(target, name, data):
    os.makedirs(os.path.join(OUT, target), exist_ok=True)
    with open(os.path.join(OUT, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def gzip_member(data, level=9):
    z = zlib.compressobj(level, zlib.DEFLATED, 31)
    return z.compress(data) + z.flush()


def gzip_bomb(prefix, mib=65):
    """prefix then mib MiB of zeros, as one gzip member per MiB (about 1 KB each)."""
    zeros = gzip_member(bytes(1 << 20))
    return gzip_member(prefix) + zeros * mib


# --- binary records (BinFileRecorder): tags null 0, false 1, true 2, int 3, float 4, string 5, list 6, map 7, tensor 8
def u64(v):
    return struct.pack("<Q", v)


def bstr(s):
    return u64(len(s)) + s.encode()


def xxh3(data):
    """XXH3-64 through Debian's libxxhash (the checksum Scorch's binary formats append)."""
    lib = ctypes.CDLL(ctypes.util.find_library("xxhash") or "libxxhash.so.0")
    lib.XXH3_64bits.restype = ctypes.c_uint64
    lib.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    return lib.XXH3_64bits(data, len(data))


BIN_HEAD = (b"SCORCHB1\x07" + u64(2) + bstr("metadata") + b"\x07" + u64(2) + bstr("format") + b"\x05" +
            bstr("scorch-record") + bstr("version") + b"\x03" + struct.pack("<q", 1) + bstr("item"))


def bin_tensor(dtype, dims, nbytes, data=b""):
    """A tensor item after BIN_HEAD, its data aligned to 64 bytes from the file start."""
    head = b"\x08" + bytes([dtype, len(dims)]) + b"".join(u64(d) for d in dims) + u64(0) + u64(nbytes)
    pad = (64 - (len(BIN_HEAD) + len(head)) % 64) % 64
    return head + bytes(pad) + data


def bin_record(item, checksum=True):
    body = BIN_HEAD + item
    return body + u64(xxh3(body)) if checksum else body


def mpk_record(item):
    body = b"\x82\xa8metadata\x82\xa6format\xadscorch-record\xa7version\x01\xa4item" + item
    return body + b"\xcf" + struct.pack(">Q", xxh3(body) >> 1)


def varint(n):
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n >= 0x80 else 0))
        n >>= 7
        if not n:
            return bytes(out)


def pb_field(number, payload):  # a protobuf length-delimited field
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def onnx_wide_graph(nodes):  # onnx.proto GraphProto: Relu nodes x -> y<i>, input x, output y0
    tensor_info = lambda name: pb_field(1, name) + pb_field(2, pb_field(1, varint(1 << 3) + varint(1)))
    body = b"".join(pb_field(1, pb_field(1, b"x") + pb_field(2, b"y%d" % i) + pb_field(4, b"Relu")) for i in range(nodes))
    return body + pb_field(2, b"wide") + pb_field(11, tensor_info(b"x")) + pb_field(12, tensor_info(b"y0"))


def onnx_model(graph):  # ModelProto{ir_version 8, opset 13, graph}
    return varint(1 << 3) + varint(8) + pb_field(8, varint(2 << 3) + varint(13)) + pb_field(7, graph)


def main():
    # Binary records (dtype codes: f32 1, bool 9), the same bytes for the file and in-memory loaders.
    for target in ["record_bin", "record_bin_bytes"]:
        write(target, "shape-2e40", bin_record(bin_tensor(1, [1 << 20, 1 << 20], 4, bytes(4))))
        write(target, "shape-wraps", bin_record(bin_tensor(1, [1 << 32, 1 << 32], 0)))
        write(target, "bool-byte-58", bin_record(bin_tensor(9, [2], 2, b"\x01\x3a")))
        write(target, "rank-9", bin_record(bin_tensor(1, [1] * 9, 4, bytes(4))))
        write(target, "list-2e63", bin_record(b"\x06" + u64(1 << 63) + b"\x00"))
        write(target, "nbytes-2e64", bin_record(bin_tensor(9, [1 << 62], (1 << 64) - 1)))

    # ONNX graphs counted from the wire (graph_budget.h): an If whose then_branch holds 30 nodes, and a group field.
    branch = pb_field(1, b"then_branch") + pb_field(6, onnx_wide_graph(30)) + varint(20 << 3) + varint(5)
    if_node = pb_field(1, pb_field(1, b"c") + pb_field(2, b"y0") + pb_field(4, b"If") + pb_field(5, branch))
    write("onnx_model", "nested-if-30.onnx", onnx_model(if_node + pb_field(11, b"") + pb_field(12, b"")))
    write("onnx_model", "group-field.onnx", onnx_model(varint(15 << 3 | 3) + varint(1 << 3) + varint(1) +
                                                        varint(15 << 3 | 4) + onnx_wide_graph(2)))

    deep = "[" * 1000 + "]" * 1000
    envelope = '{"metadata": {"format": "scorch-record", "version": 1}, "item": %s}'
    write("record_json", "deep-1000", envelope % deep)
    write("record_json", "number-1e400", envelope % '{"lr": 1e400}')
    write("record_json", "shape-wraps", envelope % '{"__tensor__": "f32", "shape": [4294967296, 4294967296], "values": []}')
    write("record_json", "shape-2e40", envelope % '{"__tensor__": "f32", "shape": [1048576, 1048576], "values": []}')
    write("record_json", "int-beyond-int64", envelope % '{"__tensor__": "i64", "shape": [1], "values": [18446744073709551615]}')
    write("record_json_gz", "deep-1000.gz", gzip_member((envelope % deep).encode()))
    write("record_json_gz", "zeros-bomb.gz", gzip_bomb(b""))
    write("record_bin_gz", "zeros-bomb.gz", gzip_bomb(b""))
    write("record_bin_gz", "crafted-bomb.gz", gzip_bomb(bin_record(bin_tensor(1, [1 << 28], 1 << 30), False)))
    write("record_mpk_gz", "zeros-bomb.gz", gzip_bomb(b""))
    write("record_mpk_gz", "crafted-bomb.gz", gzip_bomb(b"\x82\xa8metadata"))

    # MessagePack: an item whose count claims 2^32 - 1 elements or bytes in front of three bytes.
    for name, head in [("array32", 0xDD), ("map32", 0xDF), ("str32", 0xDB), ("bin32", 0xC6), ("ext32", 0xC9)]:
        write("record_mpk", "count-" + name, mpk_record(bytes([head, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0])))
    write("record_mpk", "nested-40", mpk_record(b"\x91" * 40 + b"\xc0"))  # beyond msgpack-c's stack of 32
    tensor = b"\x83\xaa__tensor__"
    write("record_mpk", "shape-wraps", mpk_record(tensor + b"\xa3f32\xa5shape\x92" + (b"\xcf" + struct.pack(">Q", 1 << 32)) * 2 +
                                                  b"\xa4data\xc4\x00"))
    write("record_mpk", "bool-byte-58", mpk_record(tensor + b"\xa4bool\xa5shape\x91\x02\xa4data\xc4\x02\x01\x3a"))

    # Safetensors.
    def st(header, data=b""):
        text = header if isinstance(header, str) else json.dumps(header)
        return struct.pack("<Q", len(text)) + text.encode() + data

    write("safetensors", "header-length-2e63", struct.pack("<Q", 1 << 63) + b"{}")
    write("safetensors", "shape-wraps", st({"w": {"dtype": "F32", "shape": [1 << 32, 1 << 32], "data_offsets": [0, 0]}}))
    write("safetensors", "shape-2e40", st({"w": {"dtype": "F32", "shape": [1 << 20, 1 << 20], "data_offsets": [0, 4]}}, bytes(4)))
    write("safetensors", "bool-byte-2", st({"m": {"dtype": "BOOL", "shape": [2], "data_offsets": [0, 2]}}, b"\x02\x01"))
    write("safetensors", "number-1e400", st('{"__metadata__": {"x": 1e400}}'))
    write("safetensors", "deep-1000", st('{"__metadata__": %s}' % deep))
    write("safetensors", "long-key", st({"layers.0." + "a" * 2000: {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}, b"\x07"))
    write("safetensors", "dotted-key-200", st({".".join(["a"] * 200): {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}, b"\x07"))
    write("safetensors", "shape-not-list", st({"w": {"dtype": "U8", "shape": 1, "data_offsets": [0, 1]}}, b"\x07"))

    # Configs.
    write("config", "deep-1000", '{"width": 1, "values": %s}' % deep)
    write("config", "number-1e400", '{"width": 1, "values": [1e400]}')
    write("config", "int-beyond-range", '{"width": 18446744073709551615, "small": 300}')

    # IDX.
    def idx(dims, values=b""):
        return b"\x00\x00\x08" + bytes([len(dims)]) + b"".join(struct.pack(">I", d) for d in dims) + values

    write("idx", "dims-wrap", idx([0xFFFFFFFF] * 4))
    write("idx", "dims-2e32", idx([65536, 65536]))
    write("idx", "rank-255", idx([0xFFFFFFFF] * 255))
    write("idx_gz", "zeros-bomb.gz", gzip_bomb(b""))
    write("idx_gz", "crafted-bomb.gz", gzip_bomb(idx([4], b"\x01\x02\x03\x04")))
    write("idx_gz", "dims-2e40.gz", gzip_member(idx([1 << 20, 1 << 20])))
    write("idx_gz", "honest-bomb.gz", gzip_bomb(idx([65 << 20])))  # dims match the zeros: over 16 times the file

    # CSV and JSON lines.
    write("csv", "row-too-many-fields", "a,b,c\n1,2,3\n" + "," * 4000)
    write("csv", "unclosed-quote", 'a,b\n1,"2\n3,4\n')
    write("json_lines", "deep-1000", '{"a": 1}\n' + deep + "\n")
    write("json_lines", "number-1e400", '{"x": 1e400}\n')

    # PNG headers claiming gigapixels (one tiny IDAT).
    def png(width, height, color=2):
        def chunk(kind, data):
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

        ihdr = struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0)
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(16))) + chunk(b"IEND", b"")

    write("png", "claims-65535x65535", png(65535, 65535))
    write("png", "claims-10000x10000", png(10000, 10000))
    write("png", "claims-65535x65535-palette", png(65535, 65535, 3))

    # JPEG and SQLite, from Scorch's own seeds.
    with open(os.path.join(CORPUS, "jpeg", "c3.jpg"), "rb") as f:
        jpeg = bytearray(f.read())
    write("jpeg", "truncated", bytes(jpeg[: len(jpeg) * 2 // 3]))
    sof = jpeg.find(b"\xff\xc0")
    jpeg[sof + 5 : sof + 9] = struct.pack(">HH", 60000, 60000)
    write("jpeg", "claims-60000x60000", bytes(jpeg))
    with open(os.path.join(CORPUS, "sqlite", "mnist.db"), "rb") as f:
        db = f.read()
    write("sqlite", "truncated", db[: len(db) // 2])


if __name__ == "__main__":
    main()
