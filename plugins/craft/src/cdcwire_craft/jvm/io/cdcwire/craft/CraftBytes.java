package io.cdcwire.craft;

import java.io.ByteArrayOutputStream;

/** craft's integer encodings ({@code cdcwire_craft.primitives}): uvarints of unsigned 64-bit values
 * held in longs, zigzag varints, and the delta chunks (differences wrapping as in Go). */
final class CraftBytes {
    private CraftBytes() {
    }

    static void uvarint(ByteArrayOutputStream out, long n) {
        while (Long.compareUnsigned(n, 0x80) >= 0) {
            out.write((int) (n & 0x7F) | 0x80);
            n >>>= 7;
        }
        out.write((int) n);
    }

    static byte[] uvarint(long n) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(10);
        uvarint(out, n);
        return out.toByteArray();
    }

    static long zigzag(long n) {
        return (n << 1) ^ (n >> 63);
    }

    static void varint(ByteArrayOutputStream out, long n) {
        uvarint(out, zigzag(n));
    }

    /** First value, then differences modulo 2^64, as uvarints. */
    static void deltaUvarints(ByteArrayOutputStream out, long[] values) {
        long last = 0;
        for (long v : values) {
            uvarint(out, v - last);
            last = v;
        }
    }

    /** First value, then differences wrapped to int64, as zigzag varints. */
    static void deltaVarints(ByteArrayOutputStream out, long[] values) {
        long last = 0;
        for (long v : values) {
            varint(out, v - last);
            last = v;
        }
    }

    /** The reversed uvarint of the trailer: most significant group first. */
    static void reversedUvarint(ByteArrayOutputStream out, long n) {
        byte[] forward = uvarint(n);
        for (int i = forward.length - 1; i >= 0; i--) {
            out.write(forward[i]);
        }
    }
}
