//! AllocateProducerIds (67): blocks of producer ids for brokers (Kafka's
//! `ProducerIdControlManager`, reached through `QuorumController`).
//!
//! A block starts where the image's next producer id is (0 before the
//! first) and is [`BLOCK_SIZE`] long; the ProducerIdsRecord moves the next
//! producer id past it. Blocks are computed against the writer's state, so
//! two brokers asking at once get consecutive blocks, and the next id only
//! grows across leaders and restarts (it is in the log and in snapshots; a
//! Java controller treats a non-increasing ProducerIdsRecord as fatal).

use kraft_protocol::messages::allocate_producer_ids_request::AllocateProducerIdsRequest;
use kraft_protocol::messages::allocate_producer_ids_response::AllocateProducerIdsResponse;
use kraft_protocol::messages::producer_ids_record::ProducerIdsRecord;
use kraft_protocol::ErrorCode;

use super::writer::Generated;
use super::{ApiError, Controller};
use crate::image::MetadataRecord;

/// Producer ids per block (Kafka's `ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE`).
pub const BLOCK_SIZE: i32 = 1000;

/// A block of producer ids handed to a broker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ProducerIdBlock {
    start: i64,
    len: i32,
}

impl Controller {
    /// AllocateProducerIds: STALE_BROKER_EPOCH unless the broker is
    /// registered at the request's epoch; UNKNOWN_SERVER_ERROR once the ids
    /// are exhausted; else the next block, answered once its record
    /// commits.
    pub async fn allocate_producer_ids(
        &self,
        request: &AllocateProducerIdsRequest,
    ) -> AllocateProducerIdsResponse {
        let result = self
            .write("allocateProducerIds", None, |state| {
                let id = request.broker_id;
                super::check_broker_epoch(&state.image, id, request.broker_epoch)?;
                let start = state.image.producer_ids().next_producer_id().max(0);
                if start > i64::MAX - i64::from(BLOCK_SIZE) {
                    return Err(ApiError::new(
                        ErrorCode::UnknownServerError,
                        "Exhausted all producerIds as the next block's end producerId has exceeded the int64 type limit",
                    ));
                }
                let record = ProducerIdsRecord {
                    broker_id: id,
                    broker_epoch: request.broker_epoch,
                    next_producer_id: start + i64::from(BLOCK_SIZE),
                    ..Default::default()
                };
                Ok(Generated::new(
                    vec![MetadataRecord::new(record, 0)],
                    ProducerIdBlock {
                        start,
                        len: BLOCK_SIZE,
                    },
                ))
            })
            .await;
        match result {
            Ok(block) => AllocateProducerIdsResponse {
                producer_id_start: block.start,
                producer_id_len: block.len,
                ..Default::default()
            },
            Err(e) => {
                tracing::debug!(broker_id = request.broker_id, error = %e, "producer id allocation refused");
                AllocateProducerIdsResponse {
                    error_code: e.code.code(),
                    ..Default::default()
                }
            }
        }
    }
}
