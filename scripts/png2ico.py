#!/usr/bin/env python3
"""Writes a Windows .ico from PNG files (PNG-compressed entries, which Windows Vista and later read): the Windows
executable's and installer's icon from build/icons/proofglass-*.png. Usage: png2ico.py OUT.ico IN.png...
Byte-identical output for the same inputs."""
import struct
import sys


def png_size(data: bytes, name: str) -> tuple[int, int]:
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        sys.exit(f"png2ico: {name}: not a PNG file")
    return struct.unpack(">II", data[16:24])


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit("usage: png2ico.py OUT.ico IN.png...")
    images = []
    for name in sys.argv[2:]:
        with open(name, "rb") as f:
            data = f.read()
        w, h = png_size(data, name)
        if w > 256 or h > 256:
            sys.exit(f"png2ico: {name}: {w}x{h} is larger than an icon entry may be (256x256)")
        images.append((w, h, data))
    images.sort(key=lambda i: i[0])
    out = bytearray(struct.pack("<HHH", 0, 1, len(images)))
    offset = 6 + 16 * len(images)
    for w, h, data in images:
        # Width/height 0 means 256; 32 bits per pixel; the entry is the PNG file itself.
        out += struct.pack("<BBBBHHII", w % 256, h % 256, 0, 0, 1, 32, len(data), offset)
        offset += len(data)
    for _, _, data in images:
        out += data
    with open(sys.argv[1], "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
