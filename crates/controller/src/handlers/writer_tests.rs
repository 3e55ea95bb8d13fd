//! The writer's state taken again from the committed image: never while
//! records of this leader are in flight, and sharing every topic after.

use std::sync::Arc;
use std::time::Duration;

use kraft_protocol::messages::create_topics_request::{CreatableTopic, CreateTopicsRequest};
use kraft_protocol::messages::create_topics_response::CreateTopicsResponse;
use kraft_protocol::ErrorCode;

use super::broker_tests::{heartbeat, registration, setup};
use super::configs_tests::create_topic;
use super::writer::{Generated, MAX_RECORDS_PER_BATCH};
use super::{ApiError, Controller};
use kraft_protocol::Uuid;

fn create(names: impl IntoIterator<Item = String>) -> CreateTopicsRequest {
    CreateTopicsRequest {
        topics: names
            .into_iter()
            .map(|name| CreatableTopic {
                name: name.as_str().into(),
                num_partitions: 1,
                replication_factor: 3,
                ..Default::default()
            })
            .collect::<Vec<_>>()
            .into(),
        timeout_ms: 5000,
        ..Default::default()
    }
}

fn codes(r: &CreateTopicsResponse) -> Vec<i16> {
    r.topics.iter().map(|t| t.error_code).collect()
}

/// Topics the write state's image shares with the committed image, and
/// whether the two are equal.
async fn sharing(c: &Controller) -> (usize, bool) {
    let guard = c.writer.lock().await;
    let state = guard.as_ref().expect("an active write state");
    let committed = c.image.read();
    (
        state.image.topics().shared_with(committed.topics()),
        state.image == *committed,
    )
}

#[tokio::test]
async fn the_write_state_is_taken_again_from_the_committed_image_only_when_caught_up() {
    let (c, q, epochs) = super::configs_tests::cluster(true).await;
    // With commits held back, 600 topics (a TopicRecord and a
    // PartitionRecord each: enough records for the state to want taking
    // again) are appended but not committed; a second request for one of
    // them must see it in the write state.
    q.hold(true);
    let first = tokio::spawn({
        let c = Arc::clone(&c);
        async move {
            c.create_topics(&create((0..600).map(|i| format!("t{i}"))))
                .await
        }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    let second = tokio::spawn({
        let c = Arc::clone(&c);
        async move { c.create_topics(&create(["t0".to_string()])).await }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(
        !first.is_finished() && !second.is_finished(),
        "answers wait for the commit"
    );
    q.hold(false);
    let first = first.await.expect("first answer");
    let second = second.await.expect("second answer");
    assert!(codes(&first).iter().all(|c| *c == 0), "{first:?}");
    assert_eq!(codes(&second), [i16::from(ErrorCode::TopicAlreadyExists)]);
    let (shared, _) = sharing(&c).await;
    assert_eq!(shared, 0, "each image replayed the topics itself");

    // Everything committed: the next write takes the state again, and the
    // images share all 600 topics.
    let (id, epoch) = epochs[0];
    let hb = c.broker_heartbeat(&heartbeat(id, epoch, 1000)).await;
    assert_eq!(hb.error_code, 0);
    assert_eq!(sharing(&c).await, (600, true));

    // A change made after that is the writer's own copy until committed.
    let r = c.create_topics(&create(["after".to_string()])).await;
    assert_eq!(codes(&r), [0]);
    let (shared, equal) = sharing(&c).await;
    assert_eq!((shared, equal), (600, true), "a new topic unshares none");
}

#[tokio::test]
async fn a_refused_append_keeps_the_write_state() {
    let (c, q, _) = super::configs_tests::cluster(true).await;
    create_topic(&c, "kept", 1, 3).await;
    // The leader resigns: its appends are refused while its cached facts
    // still say it is the active controller.
    q.refuse_appends(true);
    for name in ["refused-1", "refused-2"] {
        let r = c.create_topics(&create([name.to_string()])).await;
        assert_eq!(codes(&r), [i16::from(ErrorCode::NotController)]);
        assert!(
            c.writer.lock().await.is_some(),
            "the write state was dropped, so the next write copies the whole image"
        );
    }
    // The kept state is the committed one: the next write builds on it.
    q.refuse_appends(false);
    let r = c
        .create_topics(&create(["kept".to_string(), "after".to_string()]))
        .await;
    assert_eq!(
        codes(&r),
        [i16::from(ErrorCode::TopicAlreadyExists), 0],
        "{r:?}"
    );
    assert!(
        sharing(&c).await.1,
        "the write state equals the committed image"
    );
}

#[tokio::test]
async fn fencing_a_broker_of_many_partitions_appends_batches_of_at_most_ten_thousand_records() {
    let (c, q) = setup(Duration::from_millis(400));
    let mut epochs = Vec::new();
    for id in [4, 5, 6] {
        let r = c.broker_registration(4, &registration(id, 1)).await;
        assert_eq!(r.error_code, 0, "broker {id}");
        epochs.push((id, r.broker_epoch));
    }
    for (id, epoch) in &epochs {
        let hb = c.broker_heartbeat(&heartbeat(*id, *epoch, 100)).await;
        assert_eq!((hb.error_code, hb.is_fenced), (0, false), "broker {id}");
    }
    // 12,000 partitions on the three brokers (two user operations of at
    // most 10,000 records each).
    create_topic(&c, "a", 6000, 3).await;
    create_topic(&c, "b", 6000, 3).await;
    // Broker 4's session expires; 5 and 6 heartbeat in time.
    tokio::time::sleep(Duration::from_millis(500)).await;
    for (id, epoch) in &epochs[1..] {
        let hb = c.broker_heartbeat(&heartbeat(*id, *epoch, 100)).await;
        assert_eq!(hb.error_code, 0, "broker {id}");
    }
    let before = q.batches.lock().unwrap().len();
    assert_eq!(c.fence_stale_brokers().await, 1, "broker 4 is fenced");
    let fence: Vec<usize> = q.batches.lock().unwrap()[before..].to_vec();
    // One PartitionChangeRecord per partition (broker 4 leaves every ISR)
    // and the fence itself, in batches Kafka's controller would write.
    assert_eq!(fence.iter().sum::<usize>(), 12_001, "{fence:?}");
    assert!(fence.len() >= 2, "{fence:?}");
    assert!(
        fence.iter().all(|n| *n <= MAX_RECORDS_PER_BATCH),
        "{fence:?}"
    );
    let image = c.image.read();
    assert!(image.cluster().broker(4).is_some_and(|b| b.fenced()));
    let topics = image.topics();
    let without_4 = ["a", "b"]
        .iter()
        .filter_map(|name| topics.topic_by_name(name))
        .flat_map(|t| t.partitions())
        .filter(|(_, p)| !p.isr().any(|r| r == 4))
        .count();
    assert_eq!(without_4, 12_000, "every ISR lost broker 4");
}

#[tokio::test]
async fn a_generated_record_the_state_refuses_is_never_appended_and_the_leader_resigns() {
    let (c, q, _) = super::configs_tests::cluster(true).await;
    create_topic(&c, "kept", 1, 3).await;
    let before = q.records();
    let stats = c.write_stats();
    // A RemoveTopicRecord for a topic that does not exist: Kafka's
    // ReplicationControlManager refuses to replay it.
    let unknown = Uuid::from_u64_pair(0xdead, 0xbeef);
    let answer = c
        .write("removeTopic", None, |_| {
            Ok(super::writer::remove_topic(unknown))
        })
        .await;
    let Err(ApiError { code, message }) = answer else {
        panic!("the write succeeded: {answer:?}");
    };
    assert_eq!(code, ErrorCode::UnknownServerError);
    let message = message.expect("the answer carries the reason");
    let offset = before.len();
    assert!(
        message.starts_with(&format!(
            "Unable to apply RemoveTopicRecord record at offset {offset} (version 0) on active controller, from the batch with baseOffset {offset}: "
        )) && message.contains("no such topic"),
        "{message}"
    );
    assert_eq!(q.records(), before, "nothing was appended");
    assert_eq!(
        q.resigned.lock().unwrap().clone(),
        [5],
        "the leader resigned"
    );
    assert_eq!(c.write_stats().batches_appended, stats.batches_appended);
    // The state was reverted to the committed image: the next write builds
    // on what is in the log.
    assert!(
        sharing(&c).await.1,
        "the write state equals the committed image"
    );
    let r = c
        .create_topics(&create(["kept".to_string(), "after".to_string()]))
        .await;
    assert_eq!(
        codes(&r),
        [i16::from(ErrorCode::TopicAlreadyExists), 0],
        "{r:?}"
    );
}

#[tokio::test]
async fn every_write_is_counted_by_name_for_the_periodic_performance_message() {
    let (c, _, _) = super::configs_tests::cluster(true).await;
    // The activation and the set-up writes of the cluster start a period
    // of their own.
    c.take_performance_message();
    create_topic(&c, "one", 1, 3).await;
    create_topic(&c, "two", 1, 3).await;
    c.write("slowWrite", None, |_| {
        std::thread::sleep(Duration::from_millis(200));
        Ok(Generated::new(Vec::new(), ()))
    })
    .await
    .expect("written");
    let message = c.take_performance_message();
    let slowest = message
        .strip_prefix("In the last 60000 ms period, 3 controller events were completed, which took an average of ")
        .and_then(|rest| rest.split_once(" ms each. The slowest event was slowWrite, which took "))
        .and_then(|(_, ms)| ms.strip_suffix(" ms."))
        .and_then(|ms| ms.parse::<f64>().ok());
    assert!(slowest.is_some_and(|ms| ms >= 200.0), "{message}");
    assert_eq!(
        c.take_performance_message(),
        "In the last 60000 ms period, there were no controller events completed."
    );
}
