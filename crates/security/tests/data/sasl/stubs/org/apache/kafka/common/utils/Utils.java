package org.apache.kafka.common.utils;

import java.util.HashMap;
import java.util.Map;

/**
 * Stand-in for the two methods of Kafka's Utils that ScramMessages and
 * ScramExtensions call (the real class pulls in most of kafka-clients).
 * Same behaviour: parseMap splits on the element separator, then each
 * element once on the key/value separator; mkString joins the entries.
 */
public final class Utils {
    private Utils() { }

    public static Map<String, String> parseMap(String mapStr, String keyValueSeparator, String elementSeparator) {
        Map<String, String> map = new HashMap<>();
        if (!mapStr.isEmpty()) {
            for (String element : mapStr.split(elementSeparator)) {
                String[] kv = element.split(keyValueSeparator, 2);
                map.put(kv[0], kv[1]);
            }
        }
        return map;
    }

    public static <K, V> String mkString(Map<K, V> map, String begin, String end,
                                         String keyValueSeparator, String elementSeparator) {
        StringBuilder out = new StringBuilder(begin);
        String sep = "";
        for (Map.Entry<K, V> e : map.entrySet()) {
            out.append(sep).append(e.getKey()).append(keyValueSeparator).append(e.getValue());
            sep = elementSeparator;
        }
        return out.append(end).toString();
    }
}
