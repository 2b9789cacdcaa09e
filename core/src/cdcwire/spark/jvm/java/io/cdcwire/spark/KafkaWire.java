package io.cdcwire.spark;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One PLAINTEXT connection to a Kafka broker and the one request this source sends: Fetch v4
 * (Kafka's wire protocol: a size-prefixed request with header v1, answered by a size-prefixed
 * response whose correlation id matches).
 *
 * <p>Why Fetch v4: it is the oldest version with {@code isolation_level} (read_committed, as the
 * Python reader's librdkafka consumer reads by default) and the aborted-transactions list, and it
 * needs no fetch sessions and no flexible (tagged-field) encoding; the brokers cdcwire is tested
 * with answer Fetch v0-13. No SASL, no TLS: a source with either is read by the Python data source.
 */
final class KafkaWire implements Closeable {
    private static final short FETCH = 1;
    private static final short FETCH_VERSION = 4;
    private static final byte READ_COMMITTED = 1;

    /** A partition's part of a Fetch response. */
    static final class Fetched {
        final short error;
        final long highWatermark, lastStable;
        final int aborted; // transactions the broker lists as aborted in what it sent
        final ByteBuffer records; // null: none

        Fetched(short error, long highWatermark, long lastStable, int aborted, ByteBuffer records) {
            this.error = error;
            this.highWatermark = highWatermark;
            this.lastStable = lastStable;
            this.aborted = aborted;
            this.records = records;
        }
    }

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final byte[] clientId;
    private int correlation;

    KafkaWire(String host, int port, int timeoutMs, String clientId) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress(host, port), timeoutMs);
        socket.setSoTimeout(timeoutMs);
        socket.setTcpNoDelay(true);
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 16));
        out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
        this.clientId = clientId.getBytes(StandardCharsets.UTF_8);
    }

    /** One partition's records from {@code offset}: at most {@code maxBytes} (but at least one batch). */
    Fetched fetch(String topic, int partition, long offset, int maxBytes, int maxWaitMs) throws IOException {
        byte[] name = topic.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        DataOutputStream b = new DataOutputStream(body);
        int id = ++correlation;
        b.writeShort(FETCH);
        b.writeShort(FETCH_VERSION);
        b.writeInt(id);
        b.writeShort(clientId.length);
        b.write(clientId);
        b.writeInt(-1); // replica id: a consumer
        b.writeInt(maxWaitMs);
        b.writeInt(1); // min bytes
        b.writeInt(maxBytes);
        b.writeByte(READ_COMMITTED);
        b.writeInt(1); // topics
        b.writeShort(name.length);
        b.write(name);
        b.writeInt(1); // partitions
        b.writeInt(partition);
        b.writeLong(offset);
        b.writeInt(maxBytes);
        b.flush();
        out.writeInt(body.size());
        body.writeTo(out);
        out.flush();

        int size = in.readInt();
        if (size < 4) {
            throw new IOException("a Fetch response of " + size + " bytes");
        }
        byte[] response = new byte[size];
        in.readFully(response);
        ByteBuffer r = ByteBuffer.wrap(response);
        if (r.getInt() != id) {
            throw new IOException("a Fetch response to another request");
        }
        r.getInt(); // throttle time
        int topics = r.getInt();
        for (int t = 0; t < topics; t++) {
            String got = string(r);
            int partitions = r.getInt();
            for (int p = 0; p < partitions; p++) {
                int index = r.getInt();
                short error = r.getShort();
                long high = r.getLong();
                long stable = r.getLong();
                int aborted = r.getInt();
                for (int a = 0; a < aborted; a++) {
                    r.getLong();
                    r.getLong();
                }
                int length = r.getInt();
                ByteBuffer records = null;
                if (length >= 0) {
                    records = r.slice();
                    records.limit(length);
                    r.position(r.position() + length);
                }
                if (got.equals(topic) && index == partition) {
                    return new Fetched(error, high, stable, Math.max(aborted, 0), records);
                }
            }
        }
        throw new IOException("a Fetch response without " + topic + "/" + partition);
    }

    private static String string(ByteBuffer r) {
        short n = r.getShort();
        byte[] s = new byte[Math.max(n, 0)];
        r.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing was left unwritten
        }
    }
}
