package io.cdcwire.avro;

import java.util.Arrays;

/**
 * Avro's binary encoding of the primitives a record of the avro protocol holds, into one growing
 * buffer reused row after row: zig-zag varints for int and long (and a union's branch), little-endian
 * IEEE floats, length-prefixed bytes and UTF-8 strings (as fastavro's {@code schemaless_writer}).
 */
final class AvroOut {
    private byte[] buf = new byte[256];
    private int size;

    void reset() {
        size = 0;
    }

    byte[] toBytes() {
        return Arrays.copyOf(buf, size);
    }

    private void room(int more) {
        if (size + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
        }
    }

    void raw(byte b) {
        room(1);
        buf[size++] = b;
    }

    void raw(byte[] bytes) {
        room(bytes.length);
        System.arraycopy(bytes, 0, buf, size, bytes.length);
        size += bytes.length;
    }

    /** An int or a long: zig-zag, then 7 bits a byte, low first. */
    void varint(long n) {
        room(10);
        long z = (n << 1) ^ (n >> 63);
        while ((z & ~0x7FL) != 0) {
            buf[size++] = (byte) ((z & 0x7F) | 0x80);
            z >>>= 7;
        }
        buf[size++] = (byte) z;
    }

    void float32(float f) {
        int bits = Float.floatToRawIntBits(f);
        room(4);
        for (int i = 0; i < 4; i++) {
            buf[size++] = (byte) (bits >>> (8 * i));
        }
    }

    void float64(double d) {
        long bits = Double.doubleToRawLongBits(d);
        room(8);
        for (int i = 0; i < 8; i++) {
            buf[size++] = (byte) (bits >>> (8 * i));
        }
    }

    void bytes(byte[] b) {
        varint(b.length);
        raw(b);
    }

    /** A string's UTF-8 with its length; false for one UTF-8 cannot carry (a lone surrogate). */
    boolean string(String s) {
        int n = s.length();
        room(10 + 3 * n);
        int lengthAt = size;
        size += 1; // one length byte for the common short string; moved when it needs more
        int start = size;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                buf[size++] = (byte) c;
            } else if (c < 0x800) {
                buf[size++] = (byte) (0xC0 | c >> 6);
                buf[size++] = (byte) (0x80 | c & 0x3F);
            } else if (Character.isSurrogate(c)) {
                if (!Character.isHighSurrogate(c) || i + 1 >= n || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return false;
                }
                int cp = Character.toCodePoint(c, s.charAt(++i));
                buf[size++] = (byte) (0xF0 | cp >> 18);
                buf[size++] = (byte) (0x80 | cp >> 12 & 0x3F);
                buf[size++] = (byte) (0x80 | cp >> 6 & 0x3F);
                buf[size++] = (byte) (0x80 | cp & 0x3F);
            } else {
                buf[size++] = (byte) (0xE0 | c >> 12);
                buf[size++] = (byte) (0x80 | c >> 6 & 0x3F);
                buf[size++] = (byte) (0x80 | c & 0x3F);
            }
        }
        int length = size - start;
        if (length < 64) { // zig-zag of 0..63 is one byte
            buf[lengthAt] = (byte) (length << 1);
            return true;
        }
        byte[] text = Arrays.copyOfRange(buf, start, size);
        size = lengthAt;
        bytes(text);
        return true;
    }
}
