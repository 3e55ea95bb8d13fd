package org.apache.kafka.common.security.scram.internals;

import org.apache.kafka.common.security.scram.ScramCredential;

import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;

/**
 * Prints test vectors computed by Kafka's own classes (compiled from the
 * Kafka 4.4 sources by run-kafka-vectors.sh): SCRAM credentials from
 * ScramFormatter, whole SCRAM exchanges with fixed nonces built with
 * ScramMessages and ScramFormatter, the results of Kafka's JaasConfig
 * parser for the cases in jaas_cases.txt, and what ScramMessages and
 * OAuthBearerClientInitialResponse make of the messages in message_cases.txt.
 *
 * Output: one "key = value" per line, read by the kraft-security tests.
 */
public class KafkaSaslVectors {
    static final Base64.Encoder B64 = Base64.getEncoder();
    static final byte[] SALT = "kraft-rs-fixed-salt".getBytes(StandardCharsets.UTF_8);

    public static void main(String[] args) throws Exception {
        for (ScramMechanism mechanism : ScramMechanism.values()) {
            ScramFormatter formatter = new ScramFormatter(mechanism);
            for (int iterations : new int[] {4096, 8192}) {
                for (String[] user : new String[][] {{"plain", "kraft-rs-password"}, {"utf8", "p\u00e4,ss=w\u00f6rd"}}) {
                    byte[] salted = formatter.saltedPassword(user[1], SALT, iterations);
                    ScramCredential c = formatter.generateCredential(SALT, salted, iterations);
                    String key = "credential." + mechanism.mechanismName() + "." + iterations + "." + user[0];
                    print(key + ".salt", B64.encodeToString(c.salt()));
                    print(key + ".stored_key", B64.encodeToString(c.storedKey()));
                    print(key + ".server_key", B64.encodeToString(c.serverKey()));
                }
            }
            exchange(formatter, mechanism, "user", "al,ice=x", "kraft-rs-password", Map.of());
            byte[] hmac = new byte[32];
            for (int i = 0; i < hmac.length; i++)
                hmac[i] = (byte) (i * 7 + 3);
            exchange(formatter, mechanism, "token", "token-id-123", B64.encodeToString(hmac), Map.of("tokenauth", "true"));
        }
        List<String> cases = Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8);
        Class<?> jaasConfig = Class.forName("org.apache.kafka.common.security.JaasConfig");
        Constructor<?> ctor = jaasConfig.getDeclaredConstructor(String.class, String.class);
        ctor.setAccessible(true);
        for (int i = 0; i < cases.size(); i++) {
            String text = unescape(cases.get(i));
            String result;
            try {
                Configuration conf = (Configuration) ctor.newInstance("KafkaClient", text);
                StringBuilder out = new StringBuilder("OK");
                for (AppConfigurationEntry e : conf.getAppConfigurationEntry("KafkaClient")) {
                    String[] flag = e.getControlFlag().toString().split(" ");
                    out.append(" [").append(escape(e.getLoginModuleName())).append('|').append(flag[flag.length - 1]);
                    // A key token without text (a number, a lone character) is the key null: printed as "null".
                    Map<String, Object> options = new TreeMap<>();
                    for (Map.Entry<String, ?> o : e.getOptions().entrySet())
                        options.put(String.valueOf(o.getKey()), o.getValue());
                    for (Map.Entry<String, Object> o : options.entrySet())
                        out.append('|').append(escape(o.getKey())).append('=').append(escape((String) o.getValue()));
                    out.append(']');
                }
                result = out.toString();
            } catch (java.lang.reflect.InvocationTargetException wrapped) {
                Throwable e = wrapped.getCause();
                result = "ERR " + e.getClass().getSimpleName() + ": " + e.getMessage();
            }
            print("jaas." + i, result);
        }
        List<String> messages = Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8);
        for (int i = 0; i < messages.size(); i++) {
            String line = messages.get(i);
            int space = line.indexOf(' ');
            String kind = line.substring(0, space);
            String text = unescape(line.substring(space + 1));
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            String result;
            try {
                result = "OK " + describeMessage(kind, bytes);
            } catch (javax.security.sasl.SaslException e) {
                String message = e.getMessage();
                if (message.endsWith(": " + text))
                    message = message.substring(0, message.length() - text.length() - 2);
                result = "ERR SaslException: " + escape(message);
            } catch (RuntimeException e) {
                result = "ERR " + e.getClass().getSimpleName() + ": " + escape(String.valueOf(e.getMessage()));
            }
            print("msg." + i, result);
        }
    }

    /** The fields Kafka's parsers extract from one message, '|'-separated; maps sorted. */
    static String describeMessage(String kind, byte[] bytes) throws javax.security.sasl.SaslException {
        switch (kind) {
            case "cf": {
                ScramMessages.ClientFirstMessage m = new ScramMessages.ClientFirstMessage(bytes);
                return escape(m.saslName()) + "|" + escape(m.nonce()) + "|" + escape(m.authorizationId()) + "|"
                    + m.extensions().tokenAuthenticated() + "|" + sorted(m.extensions().map());
            }
            case "sf": {
                ScramMessages.ServerFirstMessage m = new ScramMessages.ServerFirstMessage(bytes);
                return escape(m.nonce()) + "|" + B64.encodeToString(m.salt()) + "|" + m.iterations();
            }
            case "cfin": {
                ScramMessages.ClientFinalMessage m = new ScramMessages.ClientFinalMessage(bytes);
                return B64.encodeToString(m.channelBinding()) + "|" + escape(m.nonce()) + "|" + B64.encodeToString(m.proof());
            }
            case "sfin": {
                ScramMessages.ServerFinalMessage m = new ScramMessages.ServerFinalMessage(bytes);
                return m.error() != null ? "e=" + escape(m.error()) : "v=" + B64.encodeToString(m.serverSignature());
            }
            case "oauth": {
                org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerClientInitialResponse m =
                    new org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerClientInitialResponse(bytes);
                return escape(m.tokenValue()) + "|" + escape(m.authorizationId()) + "|" + sorted(m.extensions().map());
            }
            default:
                throw new IllegalArgumentException("unknown kind " + kind);
        }
    }

    static String sorted(Map<String, String> map) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, String> e : new TreeMap<>(map).entrySet())
            out.append(out.length() == 0 ? "" : ";").append(escape(e.getKey())).append('=').append(escape(e.getValue()));
        return out.toString();
    }

    static void exchange(ScramFormatter f, ScramMechanism mechanism, String name, String user, String password,
                         Map<String, String> extensions) throws Exception {
        String key = "exchange." + mechanism.mechanismName() + "." + name;
        String clientNonce = "kraftClientNonce0123456789";
        String serverNonce = "kraftServerNonce%9876)$";
        int iterations = 4096;
        ScramMessages.ClientFirstMessage clientFirst =
            new ScramMessages.ClientFirstMessage(ScramFormatter.saslName(user), clientNonce, extensions);
        ScramMessages.ServerFirstMessage serverFirst =
            new ScramMessages.ServerFirstMessage(clientNonce, serverNonce, SALT, iterations);
        ScramMessages.ClientFinalMessage clientFinal =
            new ScramMessages.ClientFinalMessage("n,,".getBytes(StandardCharsets.UTF_8), serverFirst.nonce());
        byte[] salted = f.saltedPassword(password, SALT, iterations);
        clientFinal.proof(f.clientProof(salted, clientFirst, serverFirst, clientFinal));
        ScramCredential credential = f.generateCredential(SALT, salted, iterations);
        byte[] signature = f.serverSignature(credential.serverKey(), clientFirst, serverFirst, clientFinal);
        // Kafka's server checks the proof the same way: the stored key must come back.
        byte[] clientSignature = f.clientSignature(credential.storedKey(), clientFirst, serverFirst, clientFinal);
        if (!java.util.Arrays.equals(f.storedKey(clientSignature, clientFinal.proof()), credential.storedKey()))
            throw new IllegalStateException("proof does not verify");
        print(key + ".user", user);
        print(key + ".password", password);
        print(key + ".client_nonce", clientNonce);
        print(key + ".server_nonce", serverNonce);
        print(key + ".salt", B64.encodeToString(SALT));
        print(key + ".client_first", new String(clientFirst.toBytes(), StandardCharsets.UTF_8));
        print(key + ".server_first", new String(serverFirst.toBytes(), StandardCharsets.UTF_8));
        print(key + ".client_final", new String(clientFinal.toBytes(), StandardCharsets.UTF_8));
        print(key + ".server_final", new String(new ScramMessages.ServerFinalMessage(null, signature).toBytes(), StandardCharsets.UTF_8));
        print(key + ".stored_key", B64.encodeToString(credential.storedKey()));
        print(key + ".server_key", B64.encodeToString(credential.serverKey()));
    }

    static void print(String key, String value) {
        System.out.println(key + " = " + value);
    }

    /** Case file escapes: \\ backslash, \n, \r, \t, \\uXXXX; anything else after a backslash stays as is. */
    static String unescape(String s) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 == s.length()) {
                out.append(c);
                continue;
            }
            char n = s.charAt(++i);
            switch (n) {
                case '\\': out.append('\\'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u': out.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16)); i += 4; break;
                default: out.append('\\').append(n);
            }
        }
        return out.toString();
    }

    /** Output escapes: \\ for backslash, \\uXXXX for controls and non-ASCII, so that each result is one line. */
    static String escape(String s) {
        StringBuilder out = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '\\') out.append("\\\\");
            else if (c < 0x20 || c >= 0x7f) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        return out.toString();
    }
}
