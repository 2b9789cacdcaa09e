package io.cdcwire.avro;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;

/**
 * A binary decoder whose ints, lengths and union indexes are read as fastavro reads them: as a
 * whole varint (a long). Avro's Java decoder reads them as 32-bit varints and drops the high
 * bits of a longer one, where fastavro reads the larger value and the Python decoder refuses it
 * or runs out of bytes; such a value is refused here, so the message stays pending.
 */
final class WholeVarints extends Decoder {
    private final BinaryDecoder in;
    private final int size; // the body's length: no string or bytes is longer

    WholeVarints(BinaryDecoder in, int size) {
        this.in = in;
        this.size = size;
    }

    private int whole() throws IOException {
        long n = in.readLong();
        if (n != (int) n) {
            throw new AvroRuntimeException("a varint past 32 bits where Avro's Java reader takes an int");
        }
        return (int) n;
    }

    private byte[] sized() throws IOException {
        int n = whole();
        if (n < 0 || n > size) {
            throw new AvroRuntimeException("a length past the body");
        }
        byte[] out = new byte[n];
        in.readFixed(out, 0, n);
        return out;
    }

    @Override public void readNull() throws IOException { in.readNull(); }
    @Override public boolean readBoolean() throws IOException { return in.readBoolean(); }
    @Override public int readInt() throws IOException { return whole(); }
    @Override public long readLong() throws IOException { return in.readLong(); }
    @Override public float readFloat() throws IOException { return in.readFloat(); }
    @Override public double readDouble() throws IOException { return in.readDouble(); }
    @Override public Utf8 readString(Utf8 old) throws IOException { return new Utf8(sized()); }
    @Override public String readString() throws IOException { return new Utf8(sized()).toString(); }
    @Override public void skipString() throws IOException { sized(); }
    @Override public ByteBuffer readBytes(ByteBuffer old) throws IOException { return ByteBuffer.wrap(sized()); }
    @Override public void skipBytes() throws IOException { sized(); }
    @Override public void readFixed(byte[] bytes, int start, int length) throws IOException { in.readFixed(bytes, start, length); }
    @Override public void skipFixed(int length) throws IOException { in.skipFixed(length); }
    @Override public int readEnum() throws IOException { return whole(); }
    @Override public long readArrayStart() throws IOException { return in.readArrayStart(); }
    @Override public long arrayNext() throws IOException { return in.arrayNext(); }
    @Override public long skipArray() throws IOException { return in.skipArray(); }
    @Override public long readMapStart() throws IOException { return in.readMapStart(); }
    @Override public long mapNext() throws IOException { return in.mapNext(); }
    @Override public long skipMap() throws IOException { return in.skipMap(); }
    @Override public int readIndex() throws IOException { return whole(); }
}
