//! MetaFlow's relaxed graph substitution (SysML'19): rules read from files ([`rule`]), found in
//! a function ([`matcher`]), applied ([`rewrite`]) under a cost model ([`cost`]) by a
//! backtracking search ([`search`]). The pass that drives it is `graph-substitute`.

pub mod cost;
pub mod cuts;
pub mod egraph;
pub mod expr;
pub mod extract;
pub mod infer;
pub mod instance;
pub mod matcher;
mod pattern;
pub mod rewrite;
pub mod rule;
mod rule_reader;
pub mod search;
pub mod sizes;
pub mod split;
