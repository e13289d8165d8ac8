//! Size lists of rule files: the dimensions of an argument (`rule.dims`), a result shape
//! (`rule.shape`) and a computed integer array (`rule.set`), written with dimension groups so
//! that one rule holds at any rank and along any axis.
//!
//! An item of a list is one of:
//! - a size expression ([`Expr`]): `"n"`, `2`, `"i % n"`;
//! - a group, `"p..."`: any number of dimensions (none included), bound by a match like a name;
//!   `rank(p)` is their count in expressions;
//! - `"repeat(e, p)"`: the value of `e` once per dimension of group `p` (the zero starts of a
//!   slice before the sliced axis);
//! - `"range(a, b)"`: the integers from `a` up to `b` excluded (the identity part of a
//!   permutation).
//!
//! In `rule.dims` only sizes and groups are allowed: they are what a match binds. A list with
//! two groups, such as `["p...", "n", "q..."]`, can split a shape in several ways; the matcher
//! tries each and keeps the first under which the rule's conditions hold.

use super::expr::{Expr, Scope};
use std::collections::BTreeMap;

/// What a match binds by name: sizes and integer values, and the dimension groups (`"p..."`) of
/// its arguments; with the size lists that must evaluate to given values once everything is
/// bound (a source op's `rule.set`).
#[derive(Debug, Clone, Default)]
pub struct Env {
    sizes: BTreeMap<String, i64>,
    groups: BTreeMap<String, Vec<i64>>,
    required: Vec<(Vec<Item>, Vec<i64>)>,
}

impl Env {
    /// Nothing bound.
    pub fn new() -> Env {
        Env::default()
    }

    /// The sizes of the dimension group `name`.
    pub fn group(&self, name: &str) -> Option<&[i64]> {
        self.groups.get(name).map(Vec::as_slice)
    }

    /// Binds `name` to `value` unless it is bound; whether it is bound to `value` now.
    pub fn bind(&mut self, name: &str, value: i64) -> bool {
        *self.sizes.entry(name.to_owned()).or_insert(value) == value
    }

    /// Binds the group `name` to `sizes` unless it is bound; whether it is bound to them now.
    pub fn bind_group(&mut self, name: &str, sizes: &[i64]) -> bool {
        self.groups
            .entry(name.to_owned())
            .or_insert_with(|| sizes.to_vec())
            == sizes
    }

    /// Binds `name` to `value`, replacing what it was bound to.
    pub fn set(&mut self, name: &str, value: i64) {
        self.sizes.insert(name.to_owned(), value);
    }

    /// Requires `list` to evaluate to `values` once everything is bound.
    pub fn require(&mut self, list: &[Item], values: Vec<i64>) {
        self.required.push((list.to_vec(), values));
    }

    /// Whether every required list evaluates to its values.
    pub fn requirements_hold(&self) -> bool {
        self.required
            .iter()
            .all(|(list, values)| expand(list, self).as_ref() == Some(values))
    }
}

impl Scope for Env {
    fn size(&self, name: &str) -> Option<i64> {
        self.sizes.get(name).copied()
    }

    fn rank(&self, group: &str) -> Option<usize> {
        self.groups.get(group).map(Vec::len)
    }
}

/// An item of a size list.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// One size.
    Size(Expr),
    /// The sizes of a dimension group (`"p..."`).
    Group(String),
    /// A value once per dimension of a group (`"repeat(0, p)"`).
    Repeat(Expr, String),
    /// The integers from the first up to the second excluded (`"range(0, rank(p))"`).
    Range(Expr, Expr),
}

impl Item {
    /// Parses one item of a list.
    pub fn parse(text: &str) -> Result<Item, String> {
        let text = text.trim();
        if let Some(name) = text.strip_suffix("...") {
            return match Expr::parse(name)? {
                Expr::Var(name) => Ok(Item::Group(name)),
                _ => Err(format!("'{text}': a group is a name followed by '...'")),
            };
        }
        for (function, build) in [
            ("repeat", repeat as fn(&str, &str) -> Result<Item, String>),
            ("range", range),
        ] {
            let inner = text
                .strip_prefix(function)
                .map(str::trim_start)
                .and_then(|rest| rest.strip_prefix('('))
                .and_then(|rest| rest.strip_suffix(')'));
            if let Some(inner) = inner {
                let Some((first, second)) = split_arguments(inner) else {
                    return Err(format!("'{text}': {function} takes two arguments"));
                };
                return build(first, second).map_err(|message| format!("'{text}': {message}"));
            }
        }
        Expr::parse(text).map(Item::Size)
    }

    /// The name when the item is a bare name (which a match binds rather than checks).
    pub fn as_var(&self) -> Option<&str> {
        match self {
            Item::Size(expr) => expr.as_var(),
            _ => None,
        }
    }

    /// Adds the names (sizes and groups) the item reads to `names`.
    pub fn names<'a>(&'a self, names: &mut Vec<&'a str>) {
        match self {
            Item::Size(expr) => expr.names(names),
            Item::Group(group) => names.push(group),
            Item::Repeat(expr, group) => {
                expr.names(names);
                names.push(group);
            }
            Item::Range(from, to) => {
                from.names(names);
                to.names(names);
            }
        }
    }
}

fn repeat(value: &str, group: &str) -> Result<Item, String> {
    match Expr::parse(group)? {
        Expr::Var(group) => Ok(Item::Repeat(Expr::parse(value)?, group)),
        _ => Err("repeat's second argument is a group's name".to_owned()),
    }
}

fn range(from: &str, to: &str) -> Result<Item, String> {
    Ok(Item::Range(Expr::parse(from)?, Expr::parse(to)?))
}

/// `inner` split at its one comma outside parentheses.
fn split_arguments(inner: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    let mut comma = None;
    for (index, c) in inner.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 && comma.is_some() => return None,
            ',' if depth == 0 => comma = Some(index),
            _ => {}
        }
    }
    comma.map(|index| (&inner[..index], &inner[index + 1..]))
}

/// The values of `list` under `env`, None when a name is unbound, the arithmetic overflows or a
/// range is empty backwards.
pub fn expand(list: &[Item], env: &Env) -> Option<Vec<i64>> {
    let mut values = Vec::new();
    for item in list {
        match item {
            Item::Size(expr) => values.push(expr.eval(env)?),
            Item::Group(group) => values.extend_from_slice(env.group(group)?),
            Item::Repeat(expr, group) => {
                let value = expr.eval(env)?;
                values.extend(std::iter::repeat_n(value, env.group(group)?.len()));
            }
            Item::Range(from, to) => {
                let (from, to) = (from.eval(env)?, to.eval(env)?);
                if to < from {
                    return None;
                }
                values.extend(from..to);
            }
        }
    }
    Some(values)
}

/// Every way `env` extends to bind the bare names and groups of `list` (sizes and groups only)
/// to `shape`: one per split of the shape among the groups not bound yet. Other expressions are
/// not checked here (they may read names bound later): [`expand`] checks them at the end.
pub fn bindings(list: &[Item], shape: &[i64], env: &Env) -> Vec<Env> {
    // The groups not bound yet, with how often the list names each.
    let mut free: Vec<(&str, usize)> = Vec::new();
    let mut fixed = 0usize;
    for item in list {
        match item {
            Item::Group(group) => match env.group(group) {
                Some(sizes) => fixed += sizes.len(),
                None => match free.iter_mut().find(|(name, _)| name == group) {
                    Some((_, count)) => *count += 1,
                    None => free.push((group, 1)),
                },
            },
            _ => fixed += 1,
        }
    }
    let Some(spare) = shape.len().checked_sub(fixed) else {
        return Vec::new();
    };
    let counts: Vec<usize> = free.iter().map(|(_, count)| *count).collect();
    let mut found = Vec::new();
    for lengths in group_lengths(spare, &counts) {
        let mut candidate = env.clone();
        if bind_split(list, shape, &free, &lengths, &mut candidate) {
            found.push(candidate);
        }
    }
    found
}

/// Binds `list` to `shape` with the free groups `free` of `lengths`.
fn bind_split(
    list: &[Item],
    shape: &[i64],
    free: &[(&str, usize)],
    lengths: &[usize],
    env: &mut Env,
) -> bool {
    let mut at = 0;
    for item in list {
        match item {
            Item::Group(group) => {
                let length = match free.iter().position(|(name, _)| name == group) {
                    Some(position) => lengths[position],
                    None => env.group(group).map_or(0, <[i64]>::len),
                };
                if !env.bind_group(group, &shape[at..at + length]) {
                    return false;
                }
                at += length;
            }
            item => {
                if let Some(name) = item.as_var() {
                    if !env.bind(name, shape[at]) {
                        return false;
                    }
                }
                at += 1;
            }
        }
    }
    at == shape.len()
}

/// Every choice of a length per group such that the groups, each named `counts[g]` times, take
/// `total` dimensions together.
fn group_lengths(total: usize, counts: &[usize]) -> Vec<Vec<usize>> {
    let Some((&count, rest)) = counts.split_first() else {
        return if total == 0 {
            vec![Vec::new()]
        } else {
            Vec::new()
        };
    };
    (0..=total / count)
        .flat_map(|length| {
            group_lengths(total - length * count, rest)
                .into_iter()
                .map(move |mut lengths| {
                    lengths.insert(0, length);
                    lengths
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<Item> {
        items
            .iter()
            .map(|item| Item::parse(item).unwrap())
            .collect()
    }

    #[test]
    fn two_groups_split_a_shape_every_way() {
        let dims = list(&["p...", "n", "q..."]);
        let splits = bindings(&dims, &[2, 3, 4], &Env::new());
        let axes: Vec<i64> = splits
            .iter()
            .map(|env| Expr::parse("rank(p)").unwrap().eval(env).unwrap())
            .collect();
        assert_eq!(axes, [0, 1, 2]);
        assert_eq!(splits[1].size("n"), Some(3));
        assert_eq!(splits[1].group("q"), Some(&[4][..]));
    }

    #[test]
    fn a_group_named_twice_meets_equal_sizes() {
        let dims = list(&["b...", "m", "b..."]);
        assert_eq!(bindings(&dims, &[2, 5, 2], &Env::new()).len(), 1);
        assert!(bindings(&dims, &[2, 5, 3], &Env::new()).is_empty());
    }

    #[test]
    fn lists_expand_with_repeats_and_ranges() {
        let mut env = bindings(&list(&["p...", "n", "q..."]), &[2, 3, 4, 5], &Env::new())
            .into_iter()
            .find(|env| env.group("p").map(<[i64]>::len) == Some(2))
            .unwrap();
        env.set("i", -1);
        let starts = list(&["repeat(0, p)", "i % n", "repeat(0, q)"]);
        assert_eq!(expand(&starts, &env), Some(vec![0, 0, 3, 0]));
        let swap = list(&["range(0, rank(p))", "rank(p) + 1", "rank(p)"]);
        assert_eq!(expand(&swap, &env), Some(vec![0, 1, 3, 2]));
        assert_eq!(expand(&list(&["p...", "m"]), &env), None);
    }

    #[test]
    fn malformed_items_say_why() {
        assert!(Item::parse("2 + n...")
            .unwrap_err()
            .contains("a group is a name"));
        assert!(Item::parse("repeat(0)")
            .unwrap_err()
            .contains("two arguments"));
        assert!(Item::parse("repeat(0, 1 + p)")
            .unwrap_err()
            .contains("group's name"));
        assert!(Expr::parse("rank(1)").unwrap_err().contains("rank(p)"));
    }
}
