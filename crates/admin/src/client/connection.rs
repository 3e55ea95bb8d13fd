//! The connections of a client: the pool of negotiated connections (one
//! per address, a broken one replaced on next use; the connection itself,
//! with its ApiVersions exchange, is [`crate::connection`]) and the node
//! each call goes to.

use std::sync::Arc;

use super::retry::{Attempt, Retry};
use super::Admin;
use crate::config::{Bootstrap, HostPort};
use crate::connection::Connection;
use crate::error::{AdminError, Result};

impl Admin {
    /// A negotiated connection to `addr`, reusing a healthy pooled one.
    pub(super) async fn connection(
        &self,
        addr: &HostPort,
        retry: &Retry,
    ) -> Result<Arc<Connection>> {
        let mut pool = self.inner.connections.lock().await;
        if let Some(conn) = pool.get(addr) {
            if !conn.is_broken() {
                return Ok(conn.clone());
            }
            pool.remove(addr);
        }
        let cfg = &self.inner.config;
        let remaining = retry.remaining();
        let conn = Arc::new(
            Connection::open(
                addr,
                &cfg.client_id,
                cfg.security.client(),
                cfg.connect_timeout.min(remaining),
                cfg.request_timeout.min(remaining),
            )
            .await?,
        );
        pool.insert(addr.clone(), conn.clone());
        Ok(conn)
    }

    /// The node a call should go to: the active controller (bootstrap
    /// controllers) or a reachable bootstrap broker.
    pub(super) async fn target(&self, retry: &Retry) -> Attempt<Arc<Connection>> {
        match &self.inner.config.bootstrap {
            Bootstrap::Controllers(_) => {
                let active = self.meta().active.clone();
                let addr = match active {
                    Some((_, addr)) => addr,
                    None => self.discover_active_controller(retry).await?.1,
                };
                Ok(self.connection(&addr, retry).await?)
            }
            Bootstrap::Servers(addrs) => {
                let start = self.meta().next_bootstrap;
                let mut last = None;
                for i in 0..addrs.len() {
                    let idx = (start + i) % addrs.len();
                    match self.connection(&addrs[idx], retry).await {
                        Ok(conn) => {
                            self.meta().next_bootstrap = idx;
                            return Ok(conn);
                        }
                        Err(e) if e.is_retriable() => {
                            tracing::debug!(addr = %addrs[idx], error = %e, "bootstrap broker unreachable");
                            last = Some(e);
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
                self.meta().next_bootstrap = (start + 1) % addrs.len().max(1);
                Err(last
                    .unwrap_or_else(|| AdminError::Config("no bootstrap servers".into()))
                    .into())
            }
        }
    }
}
