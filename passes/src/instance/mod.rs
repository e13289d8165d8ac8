//! Passes that build and transform the `instance` dialect: the clusters' shares (§2, §5.1),
//! GraphTurbo's groups (§3.1-3.2) and their instances (§3.3-3.5).

pub mod hw_group;
pub mod instance_bind;
pub mod instance_cluster_split;
pub mod instance_order;
pub mod instance_split;
pub mod instance_stitch;
pub mod scopes;
pub mod split_info;
pub mod wrap;
