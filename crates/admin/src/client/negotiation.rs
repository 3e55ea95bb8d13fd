//! The API versions a call's target node and this client agreed on. The
//! ApiVersions exchange itself happens when a connection opens
//! ([`crate::connection`]); these calls report its outcome.

use kraft_protocol::ApiKey;

use super::retry::Failure;
use super::Admin;
use crate::error::Result;

impl Admin {
    /// The highest version of `api` the call's target node and this client
    /// both know (negotiated with ApiVersions on connect).
    pub async fn negotiated_version(&self, api: ApiKey) -> Result<i16> {
        let mut retry = self.retry("apiVersions", None);
        loop {
            let attempt = async {
                let conn = self.target(&retry).await?;
                conn.version_for(api).map_err(Failure::fatal)
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }

    /// The highest version of `api` the call's target node advertises
    /// (`None` if it does not list the API).
    pub async fn server_max_version(&self, api: ApiKey) -> Result<Option<i16>> {
        let mut retry = self.retry("apiVersions", None);
        loop {
            let attempt = async { Ok(self.target(&retry).await?.server_max_version(api)) }.await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }
}
