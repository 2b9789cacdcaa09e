package io.cdcwire.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cdcwire.spark.JsonText;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ids a Schema Registry gives the schemas the Java encoder registers: one POST per subject and
 * schema text (the registry answers an already registered text with its id), remembered for the
 * executor's life, so a table version costs one request per executor, not one per row or task.
 *
 * <p>Deliberately not a full client: one attempt, no credentials. Anything but an id (the registry
 * unreachable, a 4xx/5xx, a body without an id) is {@code -1}, and the encoder leaves the row to
 * the Python encoder, whose client retries for schema-registry-retry-seconds and words the error.
 */
final class SchemaIds {
    /** Ids by registry, subject and text; emptied past {@link #LIMIT} entries (a bound, not an LRU). */
    private static final ConcurrentHashMap<String, Integer> IDS = new ConcurrentHashMap<>();
    private static final int LIMIT = 4096;
    private static final int TIMEOUT_MS = 10_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private SchemaIds() {}

    /** The id of {@code text} under {@code subject}, registering it when new; -1 when the registry
     * gave none. */
    static int id(String registry, String contentType, String subject, String text) {
        String key = registry + '\n' + subject + '\n' + text;
        Integer known = IDS.get(key);
        if (known != null) {
            return known;
        }
        int id = register(registry, contentType, subject, text);
        if (id >= 0) {
            if (IDS.size() >= LIMIT) {
                IDS.clear();
            }
            IDS.put(key, id);
        }
        return id;
    }

    private static int register(String registry, String contentType, String subject, String text) {
        StringBuilder body = new StringBuilder(text.length() + 16).append("{\"schema\":");
        if (!JsonText.append(body, text)) {
            return -1;
        }
        body.append('}');
        HttpURLConnection http = null;
        try {
            http = (HttpURLConnection) new URL(registry + "/subjects/" + pathSegment(subject) + "/versions")
                    .openConnection();
            http.setRequestMethod("POST");
            http.setConnectTimeout(TIMEOUT_MS);
            http.setReadTimeout(TIMEOUT_MS);
            http.setDoOutput(true);
            http.setRequestProperty("Content-Type", contentType);
            http.setRequestProperty("Accept", contentType + ", application/json");
            try (OutputStream out = http.getOutputStream()) {
                out.write(body.toString().getBytes(StandardCharsets.UTF_8));
            }
            if (http.getResponseCode() >= 300) {
                return -1;
            }
            try (InputStream in = http.getInputStream()) {
                JsonNode answer = JSON.readTree(in);
                JsonNode id = answer == null ? null : answer.get("id");
                return id != null && id.isInt() && id.asInt() >= 0 ? id.asInt() : -1;
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        } finally {
            if (http != null) {
                http.disconnect();
            }
        }
    }

    /** A subject as one URL path segment: every byte of its UTF-8 but A-Z a-z 0-9 _ . - ~ percent-encoded
     * (Python's {@code quote(subject, safe='')}). */
    private static String pathSegment(String subject) {
        StringBuilder out = new StringBuilder(subject.length() + 8);
        for (byte b : subject.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.'
                    || c == '-' || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            }
        }
        return out.toString();
    }
}
