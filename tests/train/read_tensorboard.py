#!/usr/bin/python3
"""An independent reader of TensorBoard event files (tests/train/test_learner.cpp runs it on a Learner's file).

Records are split and their masked CRC-32C checked with this file's own CRC; events are decoded by Python's protobuf
from message descriptors built here with the field numbers of TensorBoard's event.proto and summary.proto. Checks the
file version record, every CRC and that each tag's steps increase, then writes
{"scalars": {tag: [[step, value], ...]}, "histograms": {tag: [[step, num, sum, bucket counts...]]}} as JSON.
Usage: read_tensorboard.py EVENT_FILE OUT_JSON
"""
import json
import struct
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def masked(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def message_classes():
    """Event, with Summary, Summary.Value and HistogramProto (TensorBoard's field numbers)."""
    fdp = descriptor_pb2.FileDescriptorProto(name="tb_events.proto", package="tb", syntax="proto3")

    def message(name, fields, parent=None):
        m = (parent.nested_type if parent else fdp.message_type).add(name=name)
        for fname, number, ftype, label, type_name in fields:
            f = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                f.type_name = type_name
        return m

    opt, rep = F.LABEL_OPTIONAL, F.LABEL_REPEATED
    message("HistogramProto", [("min", 1, F.TYPE_DOUBLE, opt, None), ("max", 2, F.TYPE_DOUBLE, opt, None),
                               ("num", 3, F.TYPE_DOUBLE, opt, None), ("sum", 4, F.TYPE_DOUBLE, opt, None),
                               ("sum_squares", 5, F.TYPE_DOUBLE, opt, None),
                               ("bucket_limit", 6, F.TYPE_DOUBLE, rep, None), ("bucket", 7, F.TYPE_DOUBLE, rep, None)])
    summary = message("Summary", [("value", 1, F.TYPE_MESSAGE, rep, ".tb.Summary.Value")])
    message("Value", [("tag", 1, F.TYPE_STRING, opt, None), ("simple_value", 2, F.TYPE_FLOAT, opt, None),
                      ("histo", 5, F.TYPE_MESSAGE, opt, ".tb.HistogramProto")], summary)
    message("Event", [("wall_time", 1, F.TYPE_DOUBLE, opt, None), ("step", 2, F.TYPE_INT64, opt, None),
                      ("file_version", 3, F.TYPE_STRING, opt, None),
                      ("summary", 5, F.TYPE_MESSAGE, opt, ".tb.Summary")])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    event = pool.FindMessageTypeByName("tb.Event")
    if hasattr(message_factory, "GetMessageClass"):  # protobuf >= 4.22; GetPrototype is gone from 6.30
        return message_factory.GetMessageClass(event)
    return message_factory.MessageFactory(pool).GetPrototype(event)


def records(data):
    at = 0
    while at < len(data):
        if at + 12 > len(data):
            sys.exit(f"truncated record header at byte {at}")
        header = data[at:at + 8]
        (length,), (header_crc,) = struct.unpack("<Q", header), struct.unpack("<I", data[at + 8:at + 12])
        if masked(header) != header_crc:
            sys.exit(f"bad length CRC at byte {at}")
        body = data[at + 12:at + 12 + length]
        (body_crc,) = struct.unpack("<I", data[at + 12 + length:at + 16 + length])
        if len(body) != length or masked(body) != body_crc:
            sys.exit(f"bad data CRC at byte {at}")
        yield body
        at += 16 + length


def main():
    event_class = message_classes()
    with open(sys.argv[1], "rb") as f:
        events = [event_class.FromString(body) for body in records(f.read())]
    if not events or events[0].file_version != "brain.Event:2":
        sys.exit("the first record is not the file version brain.Event:2")
    scalars, histograms = {}, {}
    for event in events[1:]:
        for value in event.summary.value:
            if value.HasField("histo"):
                h = value.histo
                histograms.setdefault(value.tag, []).append([event.step, h.num, h.sum, *h.bucket])
            else:
                scalars.setdefault(value.tag, []).append([event.step, value.simple_value])
    for tag, points in {**scalars, **histograms}.items():
        steps = [p[0] for p in points]
        if any(b <= a for a, b in zip(steps, steps[1:])):
            sys.exit(f"steps of {tag} do not increase: {steps}")
    with open(sys.argv[2], "w") as f:
        json.dump({"scalars": scalars, "histograms": histograms}, f)
    print(f"read_tensorboard: {len(events)} events, {len(scalars)} scalar tags, {len(histograms)} histogram tags")


if __name__ == "__main__":
    main()
