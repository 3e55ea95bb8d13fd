package org.kraftrs.interop;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.*;
import org.apache.kafka.controller.ClientQuotaControlManager;
import org.apache.kafka.controller.ScramControlManager;
import org.apache.kafka.common.message.*;
import org.apache.kafka.common.message.AlterClientQuotasRequestData.EntryData;
import org.apache.kafka.common.message.AlterClientQuotasRequestData.EntityData;
import org.apache.kafka.common.message.AlterClientQuotasRequestData.OpData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialDeletion;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialUpsertion;
import org.apache.kafka.common.metadata.*;
import org.apache.kafka.common.requests.*;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * Prints what the real Kafka 4.4 {@code ClientQuotaControlManager} and
 * {@code ScramControlManager} answer and write for the cases of kraft-rs'
 * AlterClientQuotas and AlterUserScramCredentials tests
 * ({@code crates/controller/src/handlers/quotas_tests.rs},
 * {@code scram_tests.rs}): the answers (as {@code ControllerApis} builds
 * them, in Kafka's order) and the records, each replayed into the manager
 * before the next case. Upsertions use the salted password {@code 0..63}
 * and the salt {@code "salt-of-" + name}; keys are printed in hex.
 *
 * <pre>
 * mvn -q -B -o -f tests/interop/pom.xml compile
 * java -cp tests/interop/target/classes:$(cat tests/interop/target/classpath.txt) \
 *     org.kraftrs.interop.ScramQuotaFacts
 * </pre>
 *
 * The managers' builders and {@code alterClientQuotas} are package-private:
 * they are reached by reflection, as {@link TopicConfigFacts} does.
 */
public final class ScramQuotaFacts {
  private ScramQuotaFacts() {}

  static ClientQuotaControlManager newQuotaManager() throws Exception {
    Class<?> b = Class.forName("org.apache.kafka.controller.ClientQuotaControlManager$Builder");
    Constructor<?> c = b.getDeclaredConstructor();
    c.setAccessible(true);
    Method build = b.getDeclaredMethod("build");
    build.setAccessible(true);
    return (ClientQuotaControlManager) build.invoke(c.newInstance());
  }

  static ScramControlManager newScramManager() throws Exception {
    Class<?> b = Class.forName("org.apache.kafka.controller.ScramControlManager$Builder");
    Constructor<?> c = b.getDeclaredConstructor();
    c.setAccessible(true);
    Method build = b.getDeclaredMethod("build");
    build.setAccessible(true);
    return (ScramControlManager) build.invoke(c.newInstance());
  }

  /** A {@code ControllerResult} (package-private) seen through reflection. */
  record Result(Object response, List<ApiMessageAndVersion> records) {
    @SuppressWarnings("unchecked")
    static Result of(Object controllerResult) throws Exception {
      Method response = controllerResult.getClass().getDeclaredMethod("response");
      Method records = controllerResult.getClass().getDeclaredMethod("records");
      response.setAccessible(true);
      records.setAccessible(true);
      return new Result(response.invoke(controllerResult),
          (List<ApiMessageAndVersion>) records.invoke(controllerResult));
    }
  }

  static Result alter(ClientQuotaControlManager m, List<?> alterations) throws Exception {
    Method alter = ClientQuotaControlManager.class.getDeclaredMethod("alterClientQuotas", Collection.class);
    alter.setAccessible(true);
    return Result.of(alter.invoke(m, alterations));
  }

  static String hex(byte[] b) { StringBuilder s = new StringBuilder(); for (byte x : b) s.append(String.format("%02x", x)); return s.toString(); }
  // ---------- quotas
  static EntryData entry(Object[] parts, Object[] ops) {
    EntryData e = new EntryData();
    List<EntityData> ent = new ArrayList<>();
    for (int i = 0; i < parts.length; i += 2) ent.add(new EntityData().setEntityType((String) parts[i]).setEntityName((String) parts[i+1]));
    List<OpData> o = new ArrayList<>();
    for (int i = 0; i < ops.length; i += 2) { Double v = (Double) ops[i+1]; o.add(new OpData().setKey((String) ops[i]).setValue(v == null ? 0.0 : v).setRemove(v == null)); }
    return e.setEntity(ent).setOps(o);
  }
  static Object[] p(Object... x) { return x; }
  static void quotas(ClientQuotaControlManager m, String label, boolean validateOnly, EntryData... entries) {
    AlterClientQuotasRequest req = new AlterClientQuotasRequest(new AlterClientQuotasRequestData().setEntries(Arrays.asList(entries)).setValidateOnly(validateOnly), (short) 1);
    System.out.println("== " + label);
    try {
      Result r = alter(m, req.entries());
      @SuppressWarnings("unchecked")
      Map<ClientQuotaEntity, ApiError> results = (Map<ClientQuotaEntity, ApiError>) r.response();
      AlterClientQuotasResponse resp = AlterClientQuotasResponse.fromQuotaEntities(results, 0);
      if (entries.length > 100) {
        System.out.println("  " + resp.data().entries().size() + " answers, codes " + resp.errorCounts() + ", " + r.records().size() + " records");
        return;
      }
      for (AlterClientQuotasResponseData.EntryData e : resp.data().entries()) {
        StringBuilder s = new StringBuilder("  answer [");
        for (AlterClientQuotasResponseData.EntityData d : e.entity()) s.append(d.entityType()).append('=').append(d.entityName()).append(' ');
        System.out.println(s + "] " + e.errorCode() + " " + e.errorMessage());
      }
      if (!validateOnly) for (ApiMessageAndVersion a : r.records()) {
        ClientQuotaRecord c = (ClientQuotaRecord) a.message();
        StringBuilder s = new StringBuilder("  record v" + a.version() + " [");
        for (ClientQuotaRecord.EntityData d : c.entity()) s.append(d.entityType()).append('=').append(d.entityName()).append(' ');
        System.out.println(s + "] " + c.key() + " " + c.value() + " remove=" + c.remove());
        m.replay(c);
      }
    } catch (java.lang.reflect.InvocationTargetException t) {
      System.out.println("  threw " + t.getCause());
    } catch (Throwable t) {
      System.out.println("  threw " + t);
    }
  }
  // ---------- scram
  static byte[] salted() { byte[] b = new byte[64]; for (int i = 0; i < 64; i++) b[i] = (byte) i; return b; }
  static ScramCredentialUpsertion up(String n, int mech, int it) { return new ScramCredentialUpsertion().setName(n).setMechanism((byte) mech).setIterations(it).setSalt(("salt-of-" + n).getBytes()).setSaltedPassword(salted()); }
  static ScramCredentialDeletion del(String n, int mech) { return new ScramCredentialDeletion().setName(n).setMechanism((byte) mech); }
  static void scram(ScramControlManager m, String label, int mv, List<ScramCredentialDeletion> d, List<ScramCredentialUpsertion> u) {
    System.out.println("== " + label);
    AlterUserScramCredentialsRequestData req = new AlterUserScramCredentialsRequestData().setDeletions(d).setUpsertions(u);
    try {
      Result r = Result.of(m.alterCredentials(req, MetadataVersion.fromFeatureLevel((short) mv)));
      for (AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult x : ((AlterUserScramCredentialsResponseData) r.response()).results())
        System.out.println("  answer " + x.user() + " " + x.errorCode() + " " + x.errorMessage());
      for (ApiMessageAndVersion a : r.records()) {
        if (a.message() instanceof UserScramCredentialRecord c) {
          System.out.println("  record v" + a.version() + " set " + c.name() + " mech=" + c.mechanism() + " it=" + c.iterations() + " salt=" + new String(c.salt()) + " stored=" + hex(c.storedKey()) + " server=" + hex(c.serverKey()));
          m.replay(c);
        } else {
          RemoveUserScramCredentialRecord c = (RemoveUserScramCredentialRecord) a.message();
          System.out.println("  record v" + a.version() + " remove " + c.name() + " mech=" + c.mechanism());
          m.replay(c);
        }
      }
    } catch (Throwable t) { System.out.println("  threw " + t); }
  }
  static ScramControlManager sm(Object... users) throws Exception {
    ScramControlManager m = newScramManager();
    for (int i = 0; i < users.length; i += 2) {
      var r = Result.of(m.alterCredentials(new AlterUserScramCredentialsRequestData().setUpsertions(List.of(up((String) users[i], (Integer) users[i+1], 4096))), MetadataVersion.fromFeatureLevel((short) 33)));
      for (ApiMessageAndVersion a : r.records()) m.replay((UserScramCredentialRecord) a.message());
    }
    return m;
  }
  public static void main(String[] args) throws Exception {
    String P = "producer_byte_rate", C = "consumer_byte_rate", R = "request_percentage", M = "controller_mutation_rate", IPK = "connection_creation_rate";
    ClientQuotaControlManager q = newQuotaManager();
    // invalid entities
    for (Object[] ent : new Object[][]{ p("foo","bar"), p("user","user-1","foo","bar"), p("foo","bar","ip","1.2.3.4"), p("user","user-1","ip","1.2.3.4"), p("client-id","user-1","ip","1.2.3.4"), p() })
      quotas(q, "entity " + Arrays.toString(ent), false, entry(ent, p(P, 10000.0)));
    for (String t : new String[]{"user","client-id","ip"}) quotas(q, "empty " + t, false, entry(p(t, ""), p(P, 1.0)));
    quotas(q, "foo + empty user", false, entry(p("foo","bar","user",""), p(P, 1.0)));
    quotas(q, "empty user + client", false, entry(p("user","","client-id","c"), p(P, 1.0)));
    // keys
    quotas(q, "bad key 1", false, entry(p("user","user-1"), p("not.a.quota.key", 0.0, R, 99.9)));
    quotas(q, "bad key 2", false, entry(p("user","user-1"), p(R, 99.9, "not.a.quota.key", 0.0)));
    quotas(q, "user conn rate", false, entry(p("user","user-1"), p(IPK, 5.0)));
    quotas(q, "ip prod", false, entry(p("ip","127.0.0.1"), p(P, 5.0)));
    // values
    Object[] client = p("client-id","client-1");
    Object[][] vals = { p("foobar", 1.0), p(P, 0.0), p(C, -2.0), p(C, 1234.0), p(C, 36893488147419103232.4), p(C, 2.245), p(C, 1235.0000001), p(R, 56.62367) };
    for (Object[] v : vals) quotas(q, "value " + Arrays.toString(v), false, entry(client, v));
    for (Double v : new Double[]{2147483648.0, 1.5, 2147483647.0}) quotas(q, "ip value " + v, false, entry(p("ip","10.1.2.3"), p(IPK, v)));
    // alter and remove
    Object[] u1 = p("user","user-1");
    ClientQuotaControlManager q2 = newQuotaManager();
    quotas(q2, "ar1", false, entry(u1, p(P, 10000.0)));
    quotas(q2, "ar2", false, entry(u1, p(P, 10001.0, C, 20000.0)));
    quotas(q2, "ar3", false, entry(u1, p(P, null)));
    quotas(q2, "ar4", false, entry(u1, p(R, null)));
    quotas(q2, "ar5", false, entry(u1, p(C, null)));
    quotas(q2, "ar6", false, entry(u1, p(C, null)));
    quotas(q2, "ar7", false, entry(u1, p(R, 99.0, M, null, P, 10002.0, C, 20001.0)));
    quotas(q2, "ar8", false, entry(u1, p(P, 10002.0)));
    // entity types
    ClientQuotaControlManager q3 = newQuotaManager();
    quotas(q3, "entity types", false,
      entry(p("user","user-1","client-id","client-id-1"), p(R, 50.50)),
      entry(p("user","user-2","client-id","client-id-1"), p(R, 51.51)),
      entry(p("user","user-3","client-id","client-id-2"), p(R, 52.52)),
      entry(p("user",null,"client-id","client-id-1"), p(R, 53.53)),
      entry(p("user","user-1","client-id",null), p(R, 54.54)),
      entry(p("user","user-3","client-id",null), p(R, 55.55)),
      entry(p("user","user-1"), p(R, 56.56)),
      entry(p("user","user-2"), p(R, 57.57)),
      entry(p("user","user-3"), p(R, 58.58)),
      entry(p("user",null), p(R, 59.59)),
      entry(p("client-id","client-id-2"), p(R, 60.60)));
    // ip
    for (String ip : new String[]{null, "127.0.0.1", "127.1", "::1", "[::1]", "localhost", "example.invalid", "1:2", "[127.0.0.1]", "0x7f.1", "256.1.1.1"})
      quotas(q3, "ip " + ip, false, entry(p("ip", ip), p(IPK, 10.0)));
    // duplicates
    ClientQuotaControlManager q4 = newQuotaManager();
    quotas(q4, "dup key", false, entry(u1, p(P, 1.0, P, 2.0)));
    quotas(q4, "dup entity", false, entry(p("user","u","client-id","c"), p(P, 1.0)), entry(p("client-id","c2"), p(P, 3.0)), entry(p("client-id","c","user","u"), p(C, 2.0)));
    quotas(q4, "type twice", false, entry(p("user","a","user","b"), p(P, 7.0)));
    quotas(q4, "validate only", true, entry(u1, p(P, 10.0)), entry(p("user","user-2"), p(P, 0.5)));
    // bound
    EntryData[] many = new EntryData[2501];
    for (int i = 0; i < many.length; i++) many[i] = entry(p("user", "user-" + i), p(P, 1.0, C, 1.0, R, 1.0, M, 1.0));
    quotas(newQuotaManager(), "10004 records", false, many);
    quotas(newQuotaManager(), "10000 records", true, Arrays.copyOf(many, 2500));
    // error response
    AlterClientQuotasRequest er = new AlterClientQuotasRequest(new AlterClientQuotasRequestData().setEntries(List.of(entry(p("user","u","client-id",null), p(P, 1.0)), entry(p("foo","bar"), p()))), (short) 1);
    for (var e : er.getErrorResponse(0, new NotControllerException("The active controller appears to be node 1.")).data().entries()) System.out.println("  error response " + e.entity() + " " + e.errorCode() + " " + e.errorMessage());
    System.out.println("  policy: " + org.apache.kafka.common.protocol.Errors.POLICY_VIOLATION.message());

    // ---------- SCRAM
    scram(sm(), "upsert alice bob", 33, List.of(), List.of(up("alice", 1, 8192), up("bob", 2, 4096)));
    ScramControlManager s2 = sm("alice", 1, "alice", 2);
    scram(s2, "delete alice 512", 33, List.of(del("alice", 2)), List.of());
    scram(s2, "delete alice 512 again", 33, List.of(del("alice", 2)), List.of());
    scram(s2, "delete nobody", 33, List.of(del("nobody", 1)), List.of());
    ScramControlManager s3 = sm("alice", 1);
    scram(s3, "del mech 0", 33, List.of(del("alice", 0)), List.of());
    scram(s3, "del mech 3", 33, List.of(del("alice", 3)), List.of());
    scram(s3, "up mech 0", 33, List.of(), List.of(up("bob", 0, 4096)));
    scram(s3, "up mech -1", 33, List.of(), List.of(up("bob", -1, 4096)));
    scram(s3, "del empty", 33, List.of(del("", 0)), List.of());
    scram(s3, "up empty", 33, List.of(), List.of(up("", 9, 4096)));
    scram(sm(), "iterations", 33, List.of(), List.of(up("alice", 1, 4095), up("bob", 2, 16385), up("carol", 1, 4096), up("dave", 2, 16384), up("eve", 2, Integer.MIN_VALUE)));
    ScramControlManager s5 = sm("alice", 1, "alice", 2, "bob", 1);
    scram(s5, "dup 1", 33, List.of(del("alice", 1), del("alice", 2)), List.of());
    scram(s5, "dup 2", 33, List.of(del("bob", 1)), List.of(up("bob", 2, 4096), up("carol", 1, 4096), up("carol", 2, 4096), up("carol", 2, 4096)));
    scram(s5, "dup 3", 33, List.of(del("dave", 1)), List.of(up("dave", 1, 4096)));
    scram(sm("bob", 1, "dave", 2, "grace", 1), "order", 33, List.of(del("dave", 2), del("bob", 1), del("carol", 1)), List.of(up("eve", 1, 4096), up("alice", 2, 8192), up("frank", 1, 100), up("grace", 2, 4096)));
    ScramCredentialUpsertion empty = up("alice", 1, 4096).setSaltedPassword(new byte[0]);
    scram(sm(), "empty salted", 33, List.of(), List.of(empty, up("bob", 1, 4096)));
    scram(sm(), "low mv", 10, List.of(del("alice", 1), del("alice", 2)), List.of(up("bob", 1, 4096), up("", 7, 1)));
    var sreq = new AlterUserScramCredentialsRequest.Builder(new AlterUserScramCredentialsRequestData().setDeletions(List.of(del("carol", 1))).setUpsertions(List.of(up("bob", 1, 4096), up("alice", 1, 4096), up("bob", 2, 4096)))).build((short) 0);
    for (var x : ((AlterUserScramCredentialsResponse) sreq.getErrorResponse(0, new NotControllerException("The active controller appears to be node 1."))).data().results()) System.out.println("  scram error response " + x.user() + " " + x.errorCode() + " " + x.errorMessage());
  }
}
