//! The writer's state taken again from the committed image: never while
//! records of this leader are in flight, and sharing every topic after.

use std::sync::Arc;
use std::time::Duration;

use kraft_protocol::messages::create_topics_request::{CreatableTopic, CreateTopicsRequest};
use kraft_protocol::messages::create_topics_response::CreateTopicsResponse;
use kraft_protocol::ErrorCode;

use super::broker_tests::heartbeat;
use super::Controller;

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
