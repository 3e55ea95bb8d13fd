package org.kraftrs.interop;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.AddRaftVoterOptions;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.RaftVoterEndpoint;
import org.apache.kafka.clients.admin.RemoveRaftVoterOptions;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * Real Kafka 4.4 {@link Admin} calls against a kraft-rs controller quorum
 * ({@code bootstrap.controllers}), for crates/cli/tests/interop_kafka.rs.
 *
 * <pre>
 * AdminChecks quorum BOOTSTRAP CLUSTER_ID DIR1,DIR2,DIR3 DIR4 PORT4
 *     controllers 1-3 are voters (BOOTSTRAP lists them in id order), controller 4
 *     (directory DIR4, port PORT4) runs as an observer: describe, add 4, remove 4,
 *     error cases; leaves 4 an observer.
 * AdminChecks unregister BOOTSTRAP ID
 *     controller ID is stopped but registered: unregisterController(ID), again
 *     (CONTROLLER_ID_NOT_REGISTERED), and the active controller (INVALID_REQUEST).
 * </pre>
 *
 * Prints "PASS name" or "FAIL name: detail" per check; exits 1 on any failure.
 */
public final class AdminChecks {
    private static final long WAIT_MS = 30_000;
    private static int failures = 0;

    /** A failed expectation. */
    private static final class CheckFailed extends Exception {
        CheckFailed(String message) {
            super(message);
        }
    }

    @FunctionalInterface
    private interface Step {
        String run() throws Exception;
    }

    private static void check(String name, Step step) {
        try {
            String note = step.run();
            System.out.println("PASS " + name + (note == null || note.isEmpty() ? "" : " (" + note + ")"));
        } catch (Throwable e) {
            failures++;
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            String detail = cause instanceof CheckFailed ? cause.getMessage() : cause.toString();
            System.out.println("FAIL " + name + ": " + detail);
        }
        System.out.flush();
    }

    private static void expect(boolean condition, String message) throws CheckFailed {
        if (!condition) {
            throw new CheckFailed(message);
        }
    }

    /** Waits for the future to fail with `error`; returns the exception's text. */
    private static String expectError(KafkaFuture<?> future, Errors error) throws Exception {
        try {
            future.get(WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Errors got = Errors.forException(e.getCause());
            expect(got == error, "expected " + error + ", got " + got + ": " + e.getCause());
            return error + ": " + e.getCause().getMessage();
        }
        throw new CheckFailed("expected " + error + ", but the call succeeded");
    }

    private static <T> T get(KafkaFuture<T> future) throws Exception {
        return future.get(WAIT_MS, TimeUnit.MILLISECONDS);
    }

    private static QuorumInfo describe(Admin admin) throws Exception {
        return get(admin.describeMetadataQuorum().quorumInfo());
    }

    private static List<Integer> ids(List<QuorumInfo.ReplicaState> replicas) {
        return replicas.stream().map(QuorumInfo.ReplicaState::replicaId).sorted().collect(Collectors.toList());
    }

    private static Optional<QuorumInfo.ReplicaState> find(List<QuorumInfo.ReplicaState> replicas, int id) {
        return replicas.stream().filter(r -> r.replicaId() == id).findFirst();
    }

    private interface QuorumCondition {
        boolean test(QuorumInfo q);
    }

    /** Describes until `condition` holds (or WAIT_MS passes); returns the last answer. */
    private static QuorumInfo describeUntil(Admin admin, String what, QuorumCondition condition) throws Exception {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        QuorumInfo q = describe(admin);
        while (!condition.test(q)) {
            if (System.currentTimeMillis() > deadline) {
                throw new CheckFailed("timed out waiting for " + what + "; last: " + q);
            }
            Thread.sleep(500);
            q = describe(admin);
        }
        return q;
    }

    private static Set<Integer> nodeIds(Admin admin) throws Exception {
        Collection<Node> nodes = get(admin.describeCluster().nodes());
        return nodes.stream().map(Node::id).collect(Collectors.toCollection(TreeSet::new));
    }

    private static Admin admin(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_CONTROLLERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return Admin.create(props);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: AdminChecks quorum|unregister ...");
            System.exit(2);
        }
        switch (args[0]) {
            case "quorum":
                if (args.length != 6) {
                    System.err.println("usage: AdminChecks quorum BOOTSTRAP CLUSTER_ID DIR1,DIR2,DIR3 DIR4 PORT4");
                    System.exit(2);
                }
                try (Admin admin = admin(args[1])) {
                    quorum(admin, args[1], args[2], args[3].split(","), Uuid.fromString(args[4]),
                        Integer.parseInt(args[5]));
                }
                break;
            case "unregister":
                if (args.length != 3) {
                    System.err.println("usage: AdminChecks unregister BOOTSTRAP ID");
                    System.exit(2);
                }
                try (Admin admin = admin(args[1])) {
                    unregister(admin, Integer.parseInt(args[2]));
                }
                break;
            default:
                System.err.println("unknown phase " + args[0]);
                System.exit(2);
        }
        System.out.println(failures == 0 ? "ALL PASSED" : failures + " FAILED");
        System.exit(failures == 0 ? 0 : 1);
    }

    private static void quorum(Admin admin, String bootstrap, String clusterId, String[] dirs, Uuid dir4, int port4) {
        List<Integer> ports = new ArrayList<>();
        for (String hp : bootstrap.split(",")) {
            ports.add(Integer.parseInt(hp.substring(hp.lastIndexOf(':') + 1)));
        }
        RaftVoterEndpoint endpoint4 = new RaftVoterEndpoint("CONTROLLER", "127.0.0.1", port4);
        int[] leader = {-1};

        check("describeMetadataQuorum: leader, voters 1-3 with directory ids, observer 4", () -> {
            QuorumInfo q = describeUntil(admin, "observer 4",
                x -> find(x.observers(), 4).isPresent() && x.leaderId() > 0);
            leader[0] = q.leaderId();
            expect(q.leaderId() >= 1 && q.leaderId() <= 3, "leader " + q.leaderId());
            expect(q.leaderEpoch() > 0, "leader epoch " + q.leaderEpoch());
            expect(q.highWatermark() > 0, "high watermark " + q.highWatermark());
            expect(ids(q.voters()).equals(List.of(1, 2, 3)), "voters " + ids(q.voters()));
            for (int id = 1; id <= 3; id++) {
                QuorumInfo.ReplicaState v = find(q.voters(), id).orElseThrow();
                expect(v.replicaDirectoryId().equals(Uuid.fromString(dirs[id - 1])),
                    "voter " + id + " directory id " + v.replicaDirectoryId() + ", want " + dirs[id - 1]);
                expect(v.logEndOffset() > 0, "voter " + id + " log end offset " + v.logEndOffset());
                expect(v.lastFetchTimestamp().isPresent() && v.lastCaughtUpTimestamp().isPresent(),
                    "voter " + id + " timestamps " + v);
            }
            QuorumInfo.ReplicaState o = find(q.observers(), 4).orElseThrow();
            expect(o.replicaDirectoryId().equals(dir4), "observer 4 directory id " + o.replicaDirectoryId());
            expect(ids(q.observers()).equals(List.of(4)), "observers " + ids(q.observers()));
            for (int id = 1; id <= 3; id++) {
                QuorumInfo.Node n = q.nodes().get(id);
                expect(n != null, "no node entry for voter " + id + ": " + q.nodes());
                RaftVoterEndpoint e = n.endpoints().isEmpty() ? null : n.endpoints().get(0);
                expect(n.endpoints().size() == 1 && e.listener().equals("CONTROLLER")
                        && e.host().equals("127.0.0.1") && e.port() == ports.get(id - 1),
                    "voter " + id + " endpoints " + n.endpoints());
            }
            return "leader " + q.leaderId() + ", epoch " + q.leaderEpoch();
        });

        check("describeCluster: cluster id, active controller, controllers 1-4 listed", () -> {
            DescribeClusterResult r = admin.describeCluster();
            String id = get(r.clusterId());
            expect(clusterId.equals(id), "cluster id " + id);
            Node controller = get(r.controller());
            expect(controller != null && controller.id() == leader[0],
                "controller " + controller + ", leader " + leader[0]);
            Collection<Node> nodes = get(r.nodes());
            Set<Integer> got = nodes.stream().map(Node::id).collect(Collectors.toCollection(TreeSet::new));
            expect(got.equals(Set.of(1, 2, 3, 4)), "nodes " + nodes);
            for (Node n : nodes) {
                int want = n.id() == 4 ? port4 : ports.get(n.id() - 1);
                expect(n.host().equals("127.0.0.1") && n.port() == want, "node " + n);
            }
            return "nodes " + got + ", controller " + controller.id();
        });

        check("describeFeatures: metadata.version finalized 33, kraft.version 1", () -> {
            FeatureMetadata f = get(admin.describeFeatures().featureMetadata());
            FinalizedVersionRange mv = f.finalizedFeatures().get("metadata.version");
            expect(mv != null && mv.maxVersionLevel() == 33 && mv.minVersionLevel() == 33,
                "metadata.version " + mv);
            FinalizedVersionRange kv = f.finalizedFeatures().get("kraft.version");
            expect(kv != null && kv.maxVersionLevel() == 1, "kraft.version " + kv);
            expect(f.supportedFeatures().containsKey("metadata.version"), "supported " + f.supportedFeatures());
            expect(f.finalizedFeaturesEpoch().isPresent(), "no finalized epoch");
            return "finalized " + f.finalizedFeatures();
        });

        check("addRaftVoter(4, dir, endpoints) with a wrong listener: INVALID_REQUEST", () -> expectError(
            admin.addRaftVoter(4, dir4, Set.of(new RaftVoterEndpoint("OTHER", "127.0.0.1", port4))).all(),
            Errors.INVALID_REQUEST));

        check("addRaftVoter(4, dir, endpoints)", () -> {
            int attempts = 0;
            while (true) {
                attempts++;
                try {
                    get(admin.addRaftVoter(4, dir4, Set.of(endpoint4)).all());
                    break;
                } catch (ExecutionException e) {
                    // the leader answers REQUEST_TIMED_OUT while the observer catches up
                    if (Errors.forException(e.getCause()) != Errors.REQUEST_TIMED_OUT || attempts >= 10) {
                        throw e;
                    }
                    Thread.sleep(2000);
                }
            }
            QuorumInfo q = describeUntil(admin, "voter 4", x -> ids(x.voters()).equals(List.of(1, 2, 3, 4)));
            QuorumInfo.ReplicaState v = find(q.voters(), 4).orElseThrow();
            expect(v.replicaDirectoryId().equals(dir4), "voter 4 directory id " + v.replicaDirectoryId());
            expect(find(q.observers(), 4).isEmpty(), "4 is still an observer: " + q.observers());
            QuorumInfo.Node n = q.nodes().get(4);
            expect(n != null && n.endpoints().size() == 1 && n.endpoints().get(0).port() == port4
                    && n.endpoints().get(0).listener().equals("CONTROLLER"),
                "node 4 " + n);
            return "voters " + ids(q.voters()) + " after " + attempts + " attempt(s)";
        });

        check("addRaftVoter of an existing voter: DUPLICATE_VOTER", () -> expectError(
            admin.addRaftVoter(4, dir4, Set.of(endpoint4)).all(), Errors.DUPLICATE_VOTER));

        check("addRaftVoter with a wrong cluster id: INCONSISTENT_CLUSTER_ID", () -> expectError(
            admin.addRaftVoter(4, dir4, Set.of(endpoint4),
                new AddRaftVoterOptions().setClusterId(Optional.of("wrongClusterIdXXXXXXXX"))).all(),
            Errors.INCONSISTENT_CLUSTER_ID));

        check("removeRaftVoter with a wrong cluster id: INCONSISTENT_CLUSTER_ID", () -> expectError(
            admin.removeRaftVoter(4, dir4,
                new RemoveRaftVoterOptions().setClusterId(Optional.of("wrongClusterIdXXXXXXXX"))).all(),
            Errors.INCONSISTENT_CLUSTER_ID));

        check("removeRaftVoter of a voter id with another directory id: VOTER_NOT_FOUND", () -> expectError(
            admin.removeRaftVoter(4, Uuid.randomUuid()).all(), Errors.VOTER_NOT_FOUND));

        check("removeRaftVoter(4, dir)", () -> {
            get(admin.removeRaftVoter(4, dir4, new RemoveRaftVoterOptions().setClusterId(Optional.of(clusterId))).all());
            QuorumInfo q = describeUntil(admin, "4 back to observer",
                x -> ids(x.voters()).equals(List.of(1, 2, 3)) && find(x.observers(), 4).isPresent());
            return "voters " + ids(q.voters()) + ", observers " + ids(q.observers());
        });

        check("removeRaftVoter of an unknown voter: VOTER_NOT_FOUND", () -> expectError(
            admin.removeRaftVoter(9, Uuid.randomUuid()).all(), Errors.VOTER_NOT_FOUND));

        check("addRaftVoter of an existing voter (1): DUPLICATE_VOTER", () -> expectError(
            admin.addRaftVoter(1, Uuid.fromString(dirs[0]),
                Set.of(new RaftVoterEndpoint("CONTROLLER", "127.0.0.1", ports.get(0)))).all(),
            Errors.DUPLICATE_VOTER));
    }

    private static void unregister(Admin admin, int id) {
        check("unregisterController(" + id + ") of a stopped controller", () -> {
            Set<Integer> before = nodeIds(admin);
            expect(before.contains(id), "controller " + id + " is not registered: " + before);
            get(admin.unregisterController(id).all());
            long deadline = System.currentTimeMillis() + WAIT_MS;
            Set<Integer> after = nodeIds(admin);
            while (after.contains(id) && System.currentTimeMillis() < deadline) {
                Thread.sleep(500);
                after = nodeIds(admin);
            }
            expect(!after.contains(id), "still listed: " + after);
            return "describeCluster nodes " + before + " -> " + after;
        });

        check("unregisterController(" + id + ") again: CONTROLLER_ID_NOT_REGISTERED", () -> expectError(
            admin.unregisterController(id).all(), Errors.CONTROLLER_ID_NOT_REGISTERED));

        check("unregisterController of the active controller: INVALID_REQUEST", () -> {
            int leader = describe(admin).leaderId();
            return "leader " + leader + ", " + expectError(admin.unregisterController(leader).all(),
                Errors.INVALID_REQUEST);
        });

        check("describeMetadataQuorum after unregister: voters 1-3", () -> {
            QuorumInfo q = describe(admin);
            expect(ids(q.voters()).equals(List.of(1, 2, 3)), "voters " + ids(q.voters()));
            return "leader " + q.leaderId();
        });
    }
}
