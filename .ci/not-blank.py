#!/usr/bin/env python3
"""Fails unless a PNG screenshot shows something: enough distinct colours
and enough pixels away from the background. Standard library only."""
import struct
import sys
import zlib

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, width, height, kind = 8, b"", 0, 0, 0
while pos < len(data):
    length, tag = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if tag == b"IHDR":
        width, height, depth, kind = struct.unpack(">IIBB", body[:10])
        assert depth == 8, "expected 8-bit channels"
    elif tag == b"IDAT":
        idat += body
    pos += 12 + length
channels = {2: 3, 6: 4}[kind]
raw = zlib.decompress(idat)
stride = width * channels
rows, prev = [], bytearray(stride)
for y in range(height):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - channels] if i >= channels else 0
        b = prev[i]
        c = prev[i - channels] if i >= channels else 0
        if f == 1:
            line[i] = (line[i] + a) & 255
        elif f == 2:
            line[i] = (line[i] + b) & 255
        elif f == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line))
    prev = line
pixels = [row[i:i + 3] for row in rows[::4] for i in range(0, stride, channels * 4)]
background = max(set(pixels), key=pixels.count)
inked = sum(p != background for p in pixels) / len(pixels)
colours = len(set(pixels))
if colours < 8 or inked < 0.01:
    sys.exit(f"{sys.argv[1]}: the page looks blank ({colours} colours, {inked:.1%} inked)")
print(f"{sys.argv[1]}: {width}x{height}, {colours} colours, {inked:.1%} inked")
