package io.cdcwire.debezium;

/**
 * Date and time texts as the debezium encoder's {@code temporal.py} reads them into Debezium's
 * numbers: days, microseconds since 1970 (proleptic Gregorian, a date's year below 70 as 20xx,
 * below 100 as 19xx), signed TIME microseconds, and TIMESTAMP's ISO text. Only ASCII digits are
 * read: a text of another form is {@link #NOT_READ}, and its row is left to Python (whose
 * patterns would take other scripts' digits too). A text of the form whose fields are no date
 * (a zero date, February 30) is {@link #INVALID}, which the encoder writes as Python does.
 */
final class DebeziumTemporal {
    /** A text not of the form read here: Python's. */
    static final long NOT_READ = Long.MIN_VALUE;
    /** A text of the form that is no valid date or time. */
    static final long INVALID = Long.MIN_VALUE + 1;
    /** TiDB's MinTimestamp, 1970-01-01 00:00:01 UTC, in microseconds. */
    static final long MIN_TIMESTAMP_MICROS = 1_000_000L;
    private static final long MICROS_PER_DAY = 86_400_000_000L;
    private static final int[] DAYS_IN_MONTH = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

    private DebeziumTemporal() {}

    /** {@code date_days}: days since 1970 of a {@code YYYY-MM-DD} text. */
    static long dateDays(String text) {
        if (text.length() != 10 || !dateForm(text)) {
            return NOT_READ;
        }
        int y = digits(text, 0, 4), m = digits(text, 5, 7), d = digits(text, 8, 10);
        return valid(y, m, d) ? daysFromCivil(twoDigitYear(y), m, d) : INVALID;
    }

    /** {@code datetime_micros}: microseconds since 1970 of a {@code YYYY-MM-DD HH:MM:SS[.f]} text
     * (or with {@code T}) read as UTC, a date's two-digit year shifted with {@code shiftYears}. */
    static long datetimeMicros(String text, boolean shiftYears) {
        int n = text.length();
        if (n < 19 || n == 20 || n > 26 || !dateForm(text) || text.charAt(10) != ' ' && text.charAt(10) != 'T'
                || !twoDigits(text, 11) || text.charAt(13) != ':' || !twoDigits(text, 14) || text.charAt(16) != ':'
                || !twoDigits(text, 17) || n > 19 && (text.charAt(19) != '.' || !allDigits(text, 20, n))) {
            return NOT_READ;
        }
        int y = digits(text, 0, 4), mo = digits(text, 5, 7), d = digits(text, 8, 10);
        int h = digits(text, 11, 13), mi = digits(text, 14, 16), s = digits(text, 17, 19);
        if (!valid(y, mo, d) || h > 23 || mi > 59 || s > 59) {
            return INVALID;
        }
        if (shiftYears) {
            y = twoDigitYear(y);
        }
        long seconds = daysFromCivil(y, mo, d) * 86_400L + h * 3600L + mi * 60L + s;
        return seconds * 1_000_000L + fractionMicros(text, 20, n);
    }

    /** {@code time_micros}: signed microseconds of a {@code [-]H[HH]:MM:SS[.f]} text, INVALID for
     * minutes or seconds past 59. */
    static long timeMicros(String text) {
        int n = text.length();
        int at = n > 0 && text.charAt(0) == '-' ? 1 : 0;
        int colon = text.indexOf(':', at);
        if (colon - at < 1 || colon - at > 3 || !allDigits(text, at, colon) || n < colon + 6
                || !twoDigits(text, colon + 1) || text.charAt(colon + 3) != ':' || !twoDigits(text, colon + 4)) {
            return NOT_READ;
        }
        int end = colon + 6;
        if (n > end && (text.charAt(end) != '.' || n - end - 1 < 1 || n - end - 1 > 6 || !allDigits(text, end + 1, n))) {
            return NOT_READ;
        }
        int mi = digits(text, colon + 1, colon + 3), s = digits(text, colon + 4, colon + 6);
        if (mi > 59 || s > 59) {
            return INVALID;
        }
        long total = (digits(text, at, colon) * 3600L + mi * 60L + s) * 1_000_000L + fractionMicros(text, end + 1, n);
        return at == 1 ? -total : total;
    }

    /** {@code fraction_digits}: how many fraction digits a date/time text shows. */
    static int fractionDigits(String text) {
        int dot = text.lastIndexOf('.');
        return dot < 0 ? 0 : text.length() - dot - 1;
    }

    /** {@code datetime_text} with {@code T} and {@code Z}: TIMESTAMP's ISO text of non-negative
     * microseconds, with {@code digits} fraction digits (cut, not rounded). */
    static void zonedText(StringBuilder out, long micros, int digits) {
        long days = micros / MICROS_PER_DAY, rest = micros % MICROS_PER_DAY;
        int[] ymd = DebeziumField.civil(days);
        long secs = rest / 1_000_000;
        pad(out, ymd[0], 4).append('-');
        pad(out, ymd[1], 2).append('-');
        pad(out, ymd[2], 2).append('T');
        pad(out, secs / 3600, 2).append(':');
        pad(out, secs % 3600 / 60, 2).append(':');
        pad(out, secs % 60, 2);
        if (digits > 0) {
            String us = String.valueOf(1_000_000 + rest % 1_000_000); // "1" and six digits
            out.append('.').append(us, 1, 1 + Math.min(digits, 6));
        }
        out.append('Z');
    }

    private static StringBuilder pad(StringBuilder out, long value, int width) {
        String text = Long.toString(value);
        for (int i = text.length(); i < width; i++) {
            out.append('0');
        }
        return out.append(text);
    }

    /** {@code days_from_civil} (H. Hinnant's algorithm). */
    static long daysFromCivil(long y, int m, int d) {
        y -= m <= 2 ? 1 : 0;
        long era = Math.floorDiv(y, 400);
        long yoe = y - era * 400;
        long doy = (153L * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146097 + doe - 719468;
    }

    private static boolean valid(int y, int m, int d) {
        if (m < 1 || m > 12 || d < 1) {
            return false;
        }
        boolean leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
        return d <= (m == 2 && leap ? 29 : DAYS_IN_MONTH[m - 1]);
    }

    private static int twoDigitYear(int y) {
        return y < 70 ? y + 2000 : y < 100 ? y + 1900 : y;
    }

    private static long fractionMicros(String text, int from, int to) {
        long us = 0;
        for (int i = from; i < from + 6; i++) {
            us = us * 10 + (i < to ? text.charAt(i) - '0' : 0);
        }
        return us;
    }

    private static boolean dateForm(String text) {
        return allDigits(text, 0, 4) && text.charAt(4) == '-' && twoDigits(text, 5) && text.charAt(7) == '-'
                && twoDigits(text, 8);
    }

    private static boolean twoDigits(String text, int at) {
        return allDigits(text, at, at + 2);
    }

    private static boolean allDigits(String text, int from, int to) {
        if (from >= to || to > text.length()) {
            return false;
        }
        for (int i = from; i < to; i++) {
            char ch = text.charAt(i);
            if (ch < '0' || ch > '9') {
                return false;
            }
        }
        return true;
    }

    private static int digits(String text, int from, int to) {
        int v = 0;
        for (int i = from; i < to; i++) {
            v = v * 10 + text.charAt(i) - '0';
        }
        return v;
    }
}
